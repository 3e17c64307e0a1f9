import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import security from 'eslint-plugin-security';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist',
      'data',
      'node_modules',
      'coverage',
      'test-results',
      'playwright-report',
      'src/server/db/migrations',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  security.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // Object lookups keyed by our own typed keys are everywhere; this rule cannot tell them from user input.
      'security/detect-object-injection': 'off',
      // Our file paths come from configuration and fixed folders, never from a request.
      'security/detect-non-literal-fs-filename': 'off',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['src/client/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/set-state-in-effect': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '@/server/*', '@/sandbox/*'],
              message: 'The client never imports server or sandbox code.',
            },
          ],
        },
      ],
    },
  },
  {
    // Features never import each other; app/routes composes them (STYLE §2).
    files: ['src/client/features/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@/client/app/*'], message: 'Features must not import from app/.' },
            {
              group: ['@/server/*', '@/sandbox/*'],
              message: 'The client never imports server or sandbox code.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/server/*', '@/client/*', '@/sandbox/*', 'node:*'],
              message: 'src/shared is pure: zod only, no I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    // Issue 15: feature modules speak Ledgerlink's types; every Xero path, body and PascalCase field lives
    // behind the port in src/server/xero. Tests may name Xero paths (to aim the sandbox's faults).
    files: ['src/server/modules/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Literal[value=/\\/(Invoices|Payments|ManualJournals|Contacts|ContactGroups|Accounts|TaxRates|Attachments|CreditNotes|Organisation)\\b/]',
          message:
            'No Xero paths in feature modules: call a typed operation of the Xero port (src/server/xero).',
        },
        {
          selector:
            'TemplateElement[value.raw=/\\/(Invoices|Payments|ManualJournals|Contacts|ContactGroups|Accounts|TaxRates|Attachments|CreditNotes|Organisation)\\b/]',
          message:
            'No Xero paths in feature modules: call a typed operation of the Xero port (src/server/xero).',
        },
        {
          selector: 'MemberExpression[computed=false][property.name=/^[A-Z][a-z0-9]+[A-Z]?[A-Za-z0-9]*$/]',
          message: 'No PascalCase Xero fields in feature modules: the Xero port maps them to our types.',
        },
        {
          selector: 'ObjectExpression > Property[key.name=/^[A-Z][a-z0-9]+[A-Z]?[A-Za-z0-9]*$/]',
          message: 'No Xero request bodies in feature modules: the Xero port builds them.',
        },
      ],
      // The write ledger (src/server/xero/write-ledger.ts) owns the table xero_writes alone: modules ask it.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/schema', '**/db/schema/**'],
              importNames: ['xeroWrites'],
              message:
                'The write ledger owns xero_writes: use a function of src/server/xero/write-ledger.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'scripts/**',
      'bench/**',
      'e2e/**',
      'src/sandbox/main.ts',
      'src/server/server.ts',
      'src/server/db/*-cli.ts',
    ],
    rules: { 'no-console': 'off' },
  },
);

import fs from 'node:fs';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import checkFile from 'eslint-plugin-check-file';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import security from 'eslint-plugin-security';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;

// The client's feature folders, read at lint time so a new feature is fenced off from the others at once.
const clientFeatures = fs
  .readdirSync(`${root}/src/client/features`, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

// Everything outside the write ledger's room (src/server/ledger), as globs so a new file or folder is fenced off
// from its inside at once. The table's definition (db/schema/ledger.ts) is left to its own zone below.
const outsideLedger = [
  './src/client/**',
  './src/shared/**',
  './src/sandbox/**',
  './bench/**',
  './scripts/**',
  './e2e/**',
  './src/server/*.ts',
  './src/server/!(ledger|db)/**',
  './src/server/db/*.ts',
  './src/server/db/!(schema)/**',
  './src/server/db/schema/!(ledger).ts',
];

/**
 * Which part of the tree may import which (docs/code-style.md §1–§4), checked on the resolved file, so a relative path
 * (`../../server/x`) is caught like an `@/` alias. Paths are relative to this file.
 */
const zones = {
  // (a) Features never import each other; app/routes composes them.
  featureToFeature: clientFeatures.map((feature) => ({
    target: `./src/client/features/${feature}`,
    from: './src/client/features',
    except: [`./${feature}`],
    message:
      'A feature never imports another feature: compose them in src/client/app, or move the shared part to lib/ or components/.',
  })),
  // (b) Imports flow one way: components|lib|config -> features -> app.
  clientLayers: [
    {
      target: ['./src/client/lib', './src/client/components', './src/client/config'],
      from: ['./src/client/features', './src/client/app'],
      message: 'lib/, components/ and config/ sit below the features and app/: they never import them.',
    },
    {
      target: './src/client/features',
      from: './src/client/app',
      message: 'Features must not import from app/.',
    },
  ],
  // (c) src/shared is imported by everyone and imports none of them.
  shared: [
    {
      target: './src/shared',
      from: ['./src/server', './src/client', './src/sandbox'],
      message: 'src/shared is pure: it imports no server, client or sandbox code.',
    },
  ],
  client: [
    {
      target: './src/client',
      from: ['./src/server', './src/sandbox'],
      message: 'The client never imports server or sandbox code.',
    },
  ],
  // The sandbox stands alone like Xero: it shares no table or type with the app that talks to it.
  sandbox: [
    {
      target: './src/sandbox',
      from: ['./src/server', './src/shared', './src/client'],
      message:
        'The sandbox stands alone like Xero: it imports nothing of the app (src/server, src/shared, src/client).',
    },
  ],
  // The Xero client knows nothing of the app's wiring (wiring.ts and its shared parts) or its feature modules.
  xero: [
    {
      target: './src/server/xero',
      from: ['./src/server/app.ts', './src/server/wiring.ts', './src/server/wiring', './src/server/modules'],
      message: 'The Xero layer knows nothing of the app: define what it needs in src/server/xero.',
    },
  ],
  // The write ledger is a room of its own (issue 46, src/server/ledger/README.md): the rest of the app imports its
  // index.ts only, and the ledger knows nothing of the app's wiring or its feature modules. The table's definition
  // reads the states and kinds from rules.ts (the index imports the schema: through it would be a cycle).
  ledger: [
    {
      target: outsideLedger,
      from: './src/server/ledger',
      except: ['./index.ts'],
      message:
        "The write ledger's inside is its own: import src/server/ledger/index.ts, which says what it offers.",
    },
    {
      target: './src/server/db/schema/ledger.ts',
      from: './src/server/ledger',
      except: ['./rules.ts'],
      message: "The ledger's table reads only the ledger's rules (rules.ts): the index imports the schema.",
    },
    {
      target: './src/server/ledger',
      from: ['./src/server/app.ts', './src/server/wiring.ts', './src/server/wiring', './src/server/modules'],
      message:
        'The write ledger knows nothing of the app: features register their kinds with it (write-kinds.ts).',
    },
  ],
  // (d) Routes -> service -> repository (docs/code-style.md §4): a routes file speaks HTTP and calls its service, which
  // its module's entry (index.ts) builds; it never builds or reads a repository or the database itself.
  routesToData: [
    {
      target: './src/server/modules/**/*.routes.ts',
      from: ['./src/server/modules/**/*.repository.ts', './src/server/db/**'],
      message:
        "A routes file never reaches the data: it calls its service, built with its repository in its module's entry (index.ts).",
    },
  ],
  // A module's entry (src/server/modules/<module>/index.ts) is src/server/wiring.ts's alone (issue 46): another
  // module is handed the service it needs by name there, so dependencies stay explicit and one way.
  moduleEntries: [
    {
      target: ['./src/server/modules', './src/server/wiring'],
      from: './src/server/modules/*/index.ts',
      message:
        "A module's entry is src/server/wiring.ts's alone: take another module's service as an argument of your entry.",
    },
  ],
  // (e) Feature code reaches Xero through the port; only tests and the wiring (demo.ts) start the sandbox.
  featureToSandbox: [
    {
      target: ['./src/client/features', './src/server/modules'],
      from: './src/sandbox',
      message:
        'Features never import the sandbox: they talk to Xero through src/server/xero, pointed at the sandbox by configuration.',
    },
  ],
};
const allZones = Object.values(zones).flat();
/** A Xero field name (`InvoiceID`, `AmountDue`, `Status`): PascalCase, as Xero's JSON spells its fields. */
const XERO_FIELD = '/^[A-Z][a-z0-9]+[A-Z]?[A-Za-z0-9]*$/';
const XERO_FIELD_MESSAGE =
  'No PascalCase Xero fields in feature modules: the Xero port maps them to our types.';
// Integration tests start the sandbox and read its state.
const testZones = allZones.filter((zone) => !zones.featureToSandbox.includes(zone));
const TEST_FILES = [
  '**/*.test.{ts,tsx}',
  '**/*.spec.ts',
  'src/server/test/**',
  'src/sandbox/test/**',
  'src/client/testing/**',
];

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
    plugins: { 'import-x': importX, 'check-file': checkFile },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${root}/tsconfig.json` })],
    },
    rules: {
      // Value cycles; type-only cycles are found by src/server/lint-boundaries.test.ts (import-x skips them).
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: root, zones: allZones }],
      // One import style: relative imports name the module without its .ts/.tsx extension (docs/code-style.md).
      'import-x/extensions': [
        'error',
        'always',
        { ignorePackages: true, pattern: { ts: 'never', tsx: 'never' } },
      ],
      // Files and folders are kebab-case (docs/code-style.md §5); `.test`, `.routes` and the like are middle extensions.
      'check-file/filename-naming-convention': [
        'error',
        { '**/*.{ts,tsx,js,mjs,cjs}': 'KEBAB_CASE' },
        { ignoreMiddleExtensions: true },
      ],
      'check-file/folder-naming-convention': ['error', { '{src,e2e,bench,scripts}/**/': 'KEBAB_CASE' }],
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
    files: TEST_FILES,
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: root, zones: testZones }] },
  },
  {
    // Type-aware rules: a promise nobody awaits loses its error (an unhandled rejection or a silent failure).
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: root } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
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
    // Features never import each other; app/routes composes them (docs/code-style.md §2).
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
        // Read as `raw.AmountDue`, `raw['AmountDue']`, or destructured: `const { InvoiceID } = raw`.
        {
          selector: `MemberExpression[computed=false][property.name=${XERO_FIELD}]`,
          message: XERO_FIELD_MESSAGE,
        },
        {
          selector: `MemberExpression[computed=true][property.value=${XERO_FIELD}]`,
          message: XERO_FIELD_MESSAGE,
        },
        { selector: `ObjectPattern > Property[key.name=${XERO_FIELD}]`, message: XERO_FIELD_MESSAGE },
        { selector: `ObjectPattern > Property[key.value=${XERO_FIELD}]`, message: XERO_FIELD_MESSAGE },
        // Declared as a field of an interface or a type literal, plain or quoted (Fastify's route generics
        // `{ Body; Querystring; Params; Headers; Reply }` are not Xero's).
        {
          selector: `TSPropertySignature[key.name=${XERO_FIELD}]:not([key.name=/^(Body|Querystring|Params|Headers|Reply)$/])`,
          message: XERO_FIELD_MESSAGE,
        },
        { selector: `TSPropertySignature[key.value=${XERO_FIELD}]`, message: XERO_FIELD_MESSAGE },
        // Written as a key of an object literal, plain or quoted.
        {
          selector: `ObjectExpression > Property[key.name=${XERO_FIELD}]`,
          message: 'No Xero request bodies in feature modules: the Xero port builds them.',
        },
        {
          selector: `ObjectExpression > Property[key.value=${XERO_FIELD}]`,
          message: 'No Xero request bodies in feature modules: the Xero port builds them.',
        },
      ],
      // The write ledger (src/server/ledger/) owns the table xero_writes alone: modules ask it.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/schema', '**/db/schema/**'],
              importNames: ['xeroWrites'],
              message: 'The write ledger owns xero_writes: use a function of src/server/ledger/index.ts.',
            },
            // Issue 31: services get the Xero port (src/server/xero/xero-port.ts), built once by the wiring site.
            {
              group: ['**/xero/xero-http', '**/xero/xero-http/**'],
              message:
                'Feature modules reach Xero through the port (src/server/xero/xero-port.ts), never its HTTP adapter.',
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

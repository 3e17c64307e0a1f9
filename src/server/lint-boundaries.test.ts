/**
 * The architecture's rules hold by themselves (issue 21): `npm run lint` fails on each import that crosses a
 * boundary, and the tree has no import cycle, type-only imports included. Each case lints a small source as
 * if it stood at a path inside the zone, through the project's own eslint.config.js.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

// The fixtures exist only as text: the type-aware rule, which needs a file on disk inside the project, is left
// out here and proven on its own below (the import rules read only the imported files, which exist).
let eslint: ESLint;
let typedEslint: ESLint;
const FLOATING_FIXTURE = 'lint-fixture.ts';
beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off' },
    },
  });
  typedEslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: { allowDefaultProject: [FLOATING_FIXTURE] } } },
    },
  });
});

/** The rule ids and messages ESLint reports for `code` placed at `file` (relative to the project). */
async function lint(file: string, code: string, linter = eslint) {
  const [result] = await linter.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((m) => ({ rule: m.ruleId, message: m.message }));
}

const ZONE = 'import-x/no-restricted-paths';

/** Each import, placed in a file at `file`, fails lint with the zone's message. */
async function expectRefused(file: string, specifiers: string[], message: string) {
  for (const specifier of specifiers) {
    const messages = await lint(file, `import * as other from '${specifier}';\nexport const x = other;\n`);
    expect(messages, `${file} importing ${specifier}`).toContainEqual({
      rule: ZONE,
      message: expect.stringContaining(message),
    });
  }
}

describe('lint fails on an import across a boundary', () => {
  it('(a) a client feature importing another feature', async () => {
    await expectRefused(
      'src/client/features/pay-invoices/components/boundary-fixture.tsx',
      ['@/client/features/settings/components/feature-card', '../../settings/components/feature-card'],
      'A feature never imports another feature',
    );
  });

  it('(b) client lib importing a feature', async () => {
    await expectRefused(
      'src/client/lib/boundary-fixture.ts',
      ['@/client/features/settings/components/feature-card'],
      'lib/, components/ and config/ sit below the features',
    );
  });

  it('(c) src/shared importing the server, the client or the sandbox by a relative path', async () => {
    await expectRefused(
      'src/shared/boundary-fixture.ts',
      ['../server/xero/endpoints', '../client/lib/utils', '../sandbox/money'],
      'src/shared is pure',
    );
  });

  it('(d) a server routes file importing a repository or the database', async () => {
    await expectRefused(
      'src/server/modules/cis-bills/boundary-fixture.routes.ts',
      ['./cis-bills.repository', '../../db/client', '../../db/schema/index.ts'],
      'A routes file never reaches the data',
    );
  });

  it('(e) a client feature or a server module importing the sandbox', async () => {
    const message = 'Features never import the sandbox';
    await expectRefused(
      'src/client/features/cis-bills/api/boundary-fixture.ts',
      ['../../../../sandbox/money'],
      message,
    );
    await expectRefused(
      'src/server/modules/cis-bills/boundary-fixture.ts',
      ['../../../sandbox/money'],
      message,
    );
  });

  it('the sandbox importing the app (src/shared or src/server)', async () => {
    await expectRefused(
      'src/sandbox/boundary-fixture.ts',
      ['../shared/money', '../server/xero/endpoints'],
      'The sandbox stands alone like Xero',
    );
  });

  it('the Xero layer importing the app’s wiring', async () => {
    await expectRefused(
      'src/server/xero/xero-http/boundary-fixture.ts',
      ['../../app', '../../wiring', '../../wiring/shared-parts'],
      'The Xero layer knows nothing of the app',
    );
  });

  it('a module or a shared part importing a module’s entry, which is wiring.ts’s alone (issue 46)', async () => {
    const message = "A module's entry is src/server/wiring.ts's alone";
    await expectRefused(
      'src/server/modules/practice/boundary-fixture.ts',
      ['../pay-invoices/index', '../cis-returns'],
      message,
    );
    await expectRefused('src/server/wiring/boundary-fixture.ts', ['../modules/auth/index'], message);
  });

  it('anything outside the write ledger importing its inside rather than its index (issue 46)', async () => {
    const message = "The write ledger's inside is its own";
    await expectRefused(
      'src/server/modules/pay-invoices/boundary-fixture.ts',
      ['../../ledger/settle', '../../ledger/rules', '../../ledger/write-kinds'],
      message,
    );
    await expectRefused(
      'src/server/modules/pay-invoices/boundary-fixture.test.ts',
      ['../../ledger/types'],
      message,
    );
    await expectRefused('src/server/xero/sync/boundary-fixture.ts', ['../../ledger/views-due'], message);
    await expectRefused('src/server/boundary-fixture.ts', ['./ledger/write-ledger'], message);
    await expectRefused('src/server/db/schema/boundary-fixture.ts', ['../../ledger/rules'], message);
    await expectRefused('bench/parts/boundary-fixture.ts', ['../../src/server/ledger/record'], message);
    // The table's definition reads the states and kinds from rules.ts, and nothing else of the inside.
    await expectRefused(
      'src/server/db/schema/ledger.ts',
      ['../../ledger/settle'],
      "The ledger's table reads only",
    );
  });

  it('the write ledger importing the app’s wiring or a feature module', async () => {
    await expectRefused(
      'src/server/ledger/boundary-fixture.ts',
      ['../wiring', '../modules/pay-invoices/pay-invoices.service'],
      'The write ledger knows nothing of the app',
    );
  });

  it('a file name that is not kebab-case', async () => {
    const messages = await lint('src/server/lib/bodyCache.ts', 'export const x = 1;\n');
    expect(messages.map((m) => m.rule)).toContain('check-file/filename-naming-convention');
  });

  it('a promise nobody awaits', async () => {
    const messages = await lint(
      FLOATING_FIXTURE,
      'async function save(): Promise<void> {}\nexport function run(): void {\n  save();\n}\n',
      typedEslint,
    );
    expect(messages.map((m) => m.rule)).toContain('@typescript-eslint/no-floating-promises');
    // Building the type program is CPU work (about 7 s alone, several times that on a loaded machine).
  }, 180_000);

  it('but not on the imports the layers allow', async () => {
    const allowed = [
      [
        'src/client/features/pay-invoices/components/boundary-fixture.tsx',
        `import { cn } from '@/client/lib/utils';\nimport { formatPounds } from '@/shared/money';\nimport { useOutOfSync } from '../hooks/use-out-of-sync';\nexport const x = [cn, formatPounds, useOutOfSync];\n`,
      ],
      [
        'src/server/modules/cis-bills/cis-bills.test.ts',
        `import type { LedgerSnapshot } from '../../../sandbox/ledger';\nexport type X = LedgerSnapshot;\n`,
      ],
      [
        'src/server/modules/cis-bills/boundary-fixture.service.ts',
        `import type { CisBillsRepository } from './cis-bills.repository';\nexport type X = CisBillsRepository;\n`,
      ],
      [
        'src/sandbox/boundary-fixture.ts',
        `import { createRandom } from './random';\nexport const x = createRandom;\n`,
      ],
      // The write ledger: its index from anywhere, its parts from each other, its rules from its table.
      [
        'src/server/modules/pay-invoices/boundary-fixture.ts',
        `import { createWriteLedger } from '../../ledger/index';\nimport { fingerprintOf } from '../../ledger';\nexport const x = [createWriteLedger, fingerprintOf];\n`,
      ],
      [
        'src/server/ledger/boundary-fixture.ts',
        `import { createLedgerSettling } from './settle';\nimport { isNotApplied } from '../xero/xero-http/http';\nexport const x = [createLedgerSettling, isNotApplied];\n`,
      ],
      [
        'src/server/db/schema/ledger.ts',
        `import { WRITE_KINDS } from '../../ledger/rules';\nexport const x = WRITE_KINDS;\n`,
      ],
      // Module entries: listed by wiring.ts; an entry takes another module's service type from its service file.
      [
        'src/server/boundary-fixture.ts',
        `import { payInvoicesModule } from './modules/pay-invoices/index';\nexport const x = payInvoicesModule;\n`,
      ],
      [
        'src/server/modules/practice/boundary-fixture.ts',
        `import type { PayInvoicesService } from '../pay-invoices/pay-invoices.service';\nexport type X = PayInvoicesService;\n`,
      ],
    ] as const;
    for (const [file, code] of allowed) {
      expect(await lint(file, code), file).toEqual([]);
    }
  });
});

describe('lint keeps Xero out of the feature modules (issues 15 and 31)', () => {
  const SERVICE = 'src/server/modules/pay-invoices/boundary-fixture.service.ts';
  const syntax = (messages: Array<{ rule: string | null; message: string }>) =>
    messages.filter((m) => m.rule === 'no-restricted-syntax').map((m) => m.message);

  it.each([
    ['a dotted read', 'export const f = (raw: any) => raw.AmountDue;'],
    ['a bracket read with a quoted key', "export const f = (raw: any) => raw['AmountDue'];"],
    [
      'a destructured field',
      'export const f = (raw: any) => { const { InvoiceID } = raw; return InvoiceID; };',
    ],
    [
      'a destructured quoted field',
      "export const f = (raw: any) => { const { 'InvoiceID': id } = raw; return id; };",
    ],
    ['an interface field', 'export interface X { InvoiceID: string }'],
    ['a quoted field of a type literal', "export type X = { 'AmountDue': number };"],
    ['a request body', "export const body = { InvoiceID: 'x', Status: 'AUTHORISED' };"],
    ['a request body with quoted keys', "export const body = { 'InvoiceID': 'x' };"],
  ])('refuses %s', async (_name, code) => {
    expect(syntax(await lint(SERVICE, code)).length, code).toBeGreaterThan(0);
  });

  it('refuses an import of the HTTP adapter, and allows the port and our own camelCase', async () => {
    for (const specifier of ['../../xero/xero-http/http', '../../xero/xero-http/pay-invoices']) {
      const messages = await lint(SERVICE, `import * as x from '${specifier}';\nexport const y = x;\n`);
      expect(messages, specifier).toContainEqual({
        rule: 'no-restricted-imports',
        message: expect.stringContaining('never its HTTP adapter'),
      });
    }
    const allowed = [
      "import type { PayInvoicesXero } from '../../xero/xero-port';\nexport type X = PayInvoicesXero;\n",
      'export interface X { invoiceId: string; amountDuePence: number }\n',
      "export const f = (raw: { invoiceId: string }) => { const { invoiceId } = raw; return raw['invoiceId'] ?? invoiceId; };\n",
      // Fastify's route generics are not Xero's.
      'export type R = { Body: { username: string }; Querystring: { org?: string } };\n',
    ];
    for (const code of allowed) expect(await lint(SERVICE, code), code).toEqual([]);
  });

  it('lets the Xero layer itself speak Xero', async () => {
    const code =
      "export interface X { InvoiceID: string }\nexport const f = (raw: { AmountDue: number }) => raw['AmountDue'];\n";
    expect(syntax(await lint('src/server/xero/xero-http/boundary-fixture.ts', code))).toEqual([]);
  });
});

describe('import cycles', () => {
  /** Every TypeScript file under src and what it imports there, type-only imports included (import-x's no-cycle skips those). */
  function importGraph(): Map<string, string[]> {
    const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), (file) => ts.sys.readFile(file));
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
    const src = path.join(root, 'src');
    const files = (fs.readdirSync(src, { recursive: true }) as string[])
      .filter((file) => /\.tsx?$/.test(file) && !file.includes(`${path.sep}migrations${path.sep}`))
      .map((file) => path.join(src, file));
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((imported) => ts.resolveModuleName(imported.fileName, file, options, ts.sys).resolvedModule)
        .filter((resolved) => resolved && !resolved.isExternalLibraryImport)
        .map((resolved) => path.resolve(resolved!.resolvedFileName))
        .filter((target) => target.startsWith(src));
      graph.set(file, [...new Set(targets)]);
    }
    return graph;
  }

  /** Groups of files that import each other, directly or through others (Tarjan's strongly connected components). */
  function cyclesOf(graph: Map<string, string[]>): string[][] {
    let counter = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const groups: string[][] = [];
    const visit = (file: string) => {
      index.set(file, counter);
      low.set(file, counter);
      counter += 1;
      stack.push(file);
      onStack.add(file);
      for (const next of graph.get(file) ?? []) {
        if (!index.has(next)) {
          visit(next);
          low.set(file, Math.min(low.get(file)!, low.get(next)!));
        } else if (onStack.has(next)) {
          low.set(file, Math.min(low.get(file)!, index.get(next)!));
        }
      }
      if (low.get(file) === index.get(file)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== file);
        if (group.length > 1) groups.push(group.sort());
      }
    };
    for (const file of graph.keys()) if (!index.has(file)) visit(file);
    return groups;
  }

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('src has none, type-only imports included', () => {
    const cycles = cyclesOf(importGraph()).map((group) => group.map((file) => path.relative(root, file)));
    expect(cycles).toEqual([]);
  });
});

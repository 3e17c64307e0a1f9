/**
 * Every audit action has a describer, and every describer writes words (issue 45 item 3). The first test fails
 * when code records an action with no describer: add one in the module's `<module>.audit.ts`
 * (src/server/modules/audit/describe.ts says how).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, describeAuditLine, isAuditAction } from './actions';
import { NO_NAMES, type AuditDescriber, type AuditLineFacts, type AuditNames } from './describe';

const SERVER = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' ? [] : sourceFiles(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [full] : [];
  });
}

/**
 * The actions the server's code records: `action: '…'` in an audit record or a write's audit, the action an
 * `auditOf(ctx, '…')` or a two-step `attempt(ctx, '…')` is given, and the kinds of CIS bill writes (their action).
 * An action is a dotted name ('payment.create'); other `action:` values (a settle's 'retry') have no dot.
 */
function recordedActions(): Map<string, string> {
  const found = new Map<string, string>();
  const patterns = [
    /\baction:\s*'([a-z][\w-]*\.[\w.-]+)'/g,
    // action: x ? 'xero.reconnect' : 'xero.connect'
    /\baction:[^,\n?]*\?\s*'([a-z][\w-]*\.[\w.-]+)'\s*:\s*'([a-z][\w-]*\.[\w.-]+)'/g,
    /\bauditOf\(\s*\w+,\s*'([a-z][\w-]*\.[\w.-]+)'/g,
    /\battempt\(\s*\w+,\s*'([a-z][\w-]*\.[\w.-]+)'/g,
    /\bkind:\s*'(bill\.[\w.-]+)'/g,
  ];
  for (const file of sourceFiles(SERVER)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of patterns)
      for (const match of text.matchAll(pattern))
        for (const action of match.slice(1)) if (action) found.set(action, path.relative(SERVER, file));
  }
  return found;
}

/** Names for the example lines: every id is known, as Ledgerlink's copy of Xero would name it. */
const EXAMPLE_NAMES: AuditNames = {
  account: (id) => (typeof id === 'string' && id ? 'Business Current Account (090)' : null),
  contact: (id) => (typeof id === 'string' && id ? 'Hughes Groundworks Ltd' : null),
  taxRate: (code) => (typeof code === 'string' && code ? '20% (VAT on Income)' : null),
  contactGroup: (id) => (typeof id === 'string' && id ? 'CIS Subcontractors' : null),
};

function lineOf(action: string, example: AuditDescriber['example']) {
  return {
    action,
    result: example.result ?? 'success',
    target: example.target ?? null,
    targetLabel: example.target ?? null,
    detail: example.detail ?? {},
    organizationName: 'Demo Shop Ltd',
    username: 'sam',
  } satisfies AuditLineFacts;
}

/** What a person should never have to read in the log. */
function expectWords(text: string, action: string) {
  expect(text.length, action).toBeGreaterThan(5);
  expect(text, action).toMatch(/^[A-Z£]/);
  expect(text, `${action}: JSON`).not.toMatch(/[{}[\]"]/);
  expect(text, `${action}: its code`).not.toContain(action);
  expect(text, `${action}: pence`).not.toMatch(/pence/i);
  expect(text, `${action}: "(s)"`).not.toContain('(s)');
  expect(text, `${action}: an id`).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/i);
  expect(text, `${action}: a missing value`).not.toMatch(/\b(undefined|null|NaN)\b/);
  expect(text, `${action}: a code`).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
  expect(text, `${action}: a field name`).not.toMatch(/\b[a-z]+[A-Z]\w*\b/);
}

describe('the activity log in words (issue 45 item 3)', () => {
  it('has a describer for every action the server records', () => {
    const recorded = recordedActions();
    // The scan finds the actions (so a change of style that hides them fails here too).
    expect(recorded.size).toBeGreaterThan(25);
    const missing = [...recorded]
      .filter(([action]) => !isAuditAction(action))
      .map(([a, file]) => `${a} (${file})`);
    expect(missing, 'add a describer in the module’s <module>.audit.ts').toEqual([]);
  });

  it('every describer writes its example, success and failure, in words', () => {
    for (const [action, describer] of Object.entries(AUDIT_ACTIONS) as Array<[string, AuditDescriber]>) {
      const line = lineOf(action, describer.example);
      expectWords(describeAuditLine(line, EXAMPLE_NAMES), action);
      expectWords(describeAuditLine(line, NO_NAMES), `${action} (no names known)`);
      expectWords(
        describeAuditLine(
          { ...line, result: 'failure', detail: { ...line.detail, error: 'Xero said no' } },
          EXAMPLE_NAMES,
        ),
        `${action} (failed)`,
      );
      // An old line with nothing recorded still reads.
      expectWords(
        describeAuditLine({ ...line, detail: {}, target: null, targetLabel: null }, NO_NAMES),
        action,
      );
    }
  });

  it('says what the issue found in code, JSON, pence and ids in words, £ amounts, names and numbers', () => {
    const say = (action: string, detail: Record<string, unknown>, extra: Partial<AuditLineFacts> = {}) =>
      describeAuditLine({ ...lineOf(action, {}), detail, ...extra }, EXAMPLE_NAMES);
    expect(say('user.login', { method: 'password' })).toBe('Signed in with a password');
    expect(say('xero.connect', { organizations: ['Demo Shop Ltd'] })).toBe('Connected Demo Shop Ltd to Xero');
    expect(
      say('xero.reconnect', { organizations: ['Demo Shop Ltd'], notIncluded: ['Demo Builders Ltd'] }),
    ).toBe(
      'Reconnected Demo Shop Ltd to Xero; Demo Builders Ltd was not included in what was allowed in Xero',
    );
    expect(
      say('stock-journal.create', {
        period: '2026-12-01_2026-12-07',
        status: 'posted',
        netPence: 796308,
        amountPence: 589858,
        marginRate: 1.35,
      }),
    ).toBe(
      'Sent the stock journal for 1 Dec – 7 Dec 2026 to Xero as posted: cost of sales £5,898.58 from net sales £7,963.08 at margin 1.35',
    );
    expect(
      say('stock-journal.sync-status', {
        changes: [
          { period: '2026-12-01_2026-12-07', from: 'DRAFT', to: 'POSTED' },
          { period: '2026-12-08_2026-12-14', from: 'NONE', to: 'DRAFT' },
        ],
      }),
    ).toBe('Read 2 journal changes from Xero: 1 Dec – 7 Dec 2026 now posted; 8 Dec – 14 Dec 2026 now draft');
    expect(
      say('settings.update', {
        before: { defaultBillAccountId: null, defaultStockJournalPostingStatus: 'draft' },
        after: {
          defaultBillAccountId: '35b2f1fa-1111-4222-8333-944455556666',
          defaultStockJournalPostingStatus: 'posted',
        },
      }),
    ).toBe(
      'Changed the bill account from none to Business Current Account (090); the posting status from Draft to Posted',
    );
    expect(
      say('payment.create', { invoiceNumber: 'INV-0042', amountPence: 12000, accountId: 'x', isCard: false }),
    ).toBe('Paid £120.00 on invoice INV-0042 from Business Current Account (090)');
    expect(say('admin.features', { featureCisBills: true }, { target: 'Demo Builders Ltd' })).toBe(
      'Switched on CIS Bills for Demo Builders Ltd',
    );
    expect(
      say('cis-returns.filed', {
        period: '2026-01',
        filedOn: '2026-01-20',
        dueDate: '2026-01-19',
        late: true,
      }),
    ).toBe(
      'Marked the CIS return for 6 Dec 2025 – 5 Jan 2026 as filed on 20 Jan 2026 (late: it was due 19 Jan 2026)',
    );
    expect(say('user.login', { reason: 'rate_limited' }, { result: 'failure' })).toBe(
      'Sign-in refused: too many attempts, so sign-in was paused',
    );
  });

  it('a line of an action no longer registered reads as its name in words', () => {
    expect(describeAuditLine({ ...lineOf('payment.delete', {}) }, NO_NAMES)).toBe('Payment: delete');
    expect(describeAuditLine({ ...lineOf('old-thing.did_it', {}), result: 'failure' }, NO_NAMES)).toBe(
      'Old thing: did it (failed)',
    );
  });
});

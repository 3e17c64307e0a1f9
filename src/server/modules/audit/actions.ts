/**
 * Every audit action and its describer, in one list (issue 45 item 3): each module registers its own beside the
 * code that records them (`<module>.audit.ts`); `AuditRecord.action` accepts only these keys, and
 * `audit-actions.test.ts` fails on an action recorded anywhere without one. A new module with actions adds its
 * list here. How to add one: src/server/modules/audit/describe.ts.
 */
import { addInvoicesAuditActions } from '../add-invoices/add-invoices.audit';
import { adminAuditActions } from '../admin/admin.audit';
import { authAuditActions } from '../auth/auth.audit';
import { cisBillsAuditActions } from '../cis-bills/cis-bills.audit';
import { cisReturnsAuditActions } from '../cis-returns/cis-returns.audit';
import { hmrcFilingAuditActions } from '../hmrc-filing/hmrc-filing.audit';
import { payInvoicesAuditActions } from '../pay-invoices/pay-invoices.audit';
import { settingsAuditActions } from '../settings/settings.audit';
import { stockJournalAuditActions } from '../stock-journal/stock-journal.audit';
import { connectionAuditActions } from '../xero-connection/connection.audit';
import type { AuditDescriber, AuditLineFacts, AuditNames } from './describe';

export const AUDIT_ACTIONS = {
  ...authAuditActions,
  ...connectionAuditActions,
  ...adminAuditActions,
  ...settingsAuditActions,
  ...payInvoicesAuditActions,
  ...addInvoicesAuditActions,
  ...cisBillsAuditActions,
  ...cisReturnsAuditActions,
  ...hmrcFilingAuditActions,
  ...stockJournalAuditActions,
} satisfies Record<string, AuditDescriber>;

/** An action the activity log can describe: the only kind `AuditRecord` takes. */
export type AuditAction = keyof typeof AUDIT_ACTIONS;

export function isAuditAction(action: string): action is AuditAction {
  return Object.hasOwn(AUDIT_ACTIONS, action);
}

/**
 * A line recorded under an action no longer registered (an old log): its name in words, never its code.
 * "stock-journal.sync-status" → "Stock journal: sync status".
 */
function describeUnregistered(line: AuditLineFacts): string {
  const [area = '', ...rest] = line.action.split('.');
  const words = (text: string) => text.replace(/[-_.]+/g, ' ').trim();
  const head = words(area);
  const what = words(rest.join(' '));
  const text = `${head.charAt(0).toUpperCase()}${head.slice(1)}${what ? `: ${what}` : ''}`;
  return line.result === 'failure' ? `${text} (failed)` : text;
}

/** The line in words, by its action's describer. Never throws: a describer that fails falls back to the name. */
export function describeAuditLine(line: AuditLineFacts, names: AuditNames): string {
  if (!isAuditAction(line.action)) return describeUnregistered(line);
  try {
    const describer: AuditDescriber = AUDIT_ACTIONS[line.action];
    return describer.describe(line, names);
  } catch {
    return describeUnregistered(line);
  }
}

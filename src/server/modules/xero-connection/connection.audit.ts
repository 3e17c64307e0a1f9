/**
 * The activity-log lines of the Xero connection and the organisation choice, in words
 * (src/server/modules/audit/describe.ts).
 */
import { CONNECTION_LOSS_TEXTS, isConnectionLossReason } from '../../../shared/connection-rules';
import { defineAuditActions, failureText, textOf, type AuditLineFacts } from '../audit/describe';

/** "Demo Shop Ltd and Demo Builders Ltd" from a recorded list of names. */
function namesIn(detail: Record<string, unknown>, key: string): string | null {
  const list = detail[key];
  if (!Array.isArray(list)) return null;
  const names = list.map((n) => (typeof n === 'string' && n.trim() ? n.trim() : 'Unknown Organization'));
  if (names.length === 0) return null;
  return names.length === 1 ? (names[0] ?? null) : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** A connect or reconnect: who was connected, and who the consent left out (issue 45 item 1). */
function describeConsent(verb: string) {
  return (line: AuditLineFacts) => {
    if (line.result === 'failure') return `${verb} to Xero failed${failureText(line)}`;
    const connected = namesIn(line.detail, 'organizations');
    const leftOut = namesIn(line.detail, 'notIncluded');
    const done = `${verb === 'Connecting' ? 'Connected' : 'Reconnected'} ${connected ?? 'organizations'} to Xero`;
    return leftOut
      ? `${done}; ${leftOut} ${leftOut.includes(' and ') ? 'were' : 'was'} not included in what was allowed in Xero`
      : done;
  };
}

export const connectionAuditActions = defineAuditActions({
  'xero.connect': {
    describe: describeConsent('Connecting'),
    example: { detail: { organizations: ['Demo Shop Ltd'], notIncluded: ['Demo Builders Ltd'] } },
  },
  'xero.reconnect': {
    describe: describeConsent('Reconnecting'),
    example: { detail: { organizations: ['Demo Builders Ltd', 'Demo Shop Ltd'] } },
  },
  'xero.disconnect': {
    describe: (line) => `Disconnected ${line.target ?? 'an organization'} from Xero; its history is kept`,
    example: { target: 'Demo Shop Ltd' },
  },
  'xero.disconnected-in-xero': {
    describe: (line) =>
      `${line.target ?? 'An organization'} was ${CONNECTION_LOSS_TEXTS.removed.past} (Ledgerlink noticed; its history is kept)`,
    example: { target: 'Demo Builders Ltd' },
  },
  'xero.connection-lost': {
    describe: (line) => {
      const reason = textOf(line.detail, 'reason');
      const orgs = namesIn(line.detail, 'organizations');
      const what = isConnectionLossReason(reason)
        ? CONNECTION_LOSS_TEXTS[reason].title
        : 'Xero connection lost';
      return `${what}${orgs ? `: ${orgs} ${orgs.includes(' and ') ? 'need' : 'needs'} reconnecting` : ''}`;
    },
    example: { detail: { reason: 'revoked', organizations: ['Demo Builders Ltd', 'Demo Shop Ltd'] } },
  },
  'organization.activate': {
    describe: (line) => `Chose ${line.target ?? 'an organization'} to work with`,
    example: { target: 'Demo Shop Ltd' },
  },
});

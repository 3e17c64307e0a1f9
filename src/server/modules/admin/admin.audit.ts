/** The activity-log lines of administration, in words (src/server/modules/audit/describe.ts). */
import { FEATURE_FLAG_FIELDS, FEATURE_KEYS, FEATURE_LABELS } from '../../../shared/feature-flags-rules';
import { defineAuditActions, formatCount, numberOf, recordOf, textOf } from '../audit/describe';

/** "Pay Invoices" for "featurePayInvoices". */
function featureName(field: string): string {
  const key = FEATURE_KEYS.find((k) => FEATURE_FLAG_FIELDS[k] === field);
  return key ? FEATURE_LABELS[key] : field;
}

/** What `changed` lists, in words: "username and email". */
const USER_FIELDS: Record<string, string> = {
  username: 'username',
  email: 'email',
  isAdmin: 'administrator rights',
};

/** Ledger states in words (decision 015). */
const WRITE_STATES: Record<string, string> = {
  confirmed: 'done in Xero',
  failed: 'not done',
  needs_review: 'waiting for review',
  unknown: 'not known',
  pending: 'waiting to be sent',
  sent: 'sent',
};

export const adminAuditActions = defineAuditActions({
  'admin.features': {
    describe: (line) => {
      const org = line.target ?? line.organizationName ?? 'an organization';
      const changes = Object.entries(line.detail)
        .filter(([, on]) => typeof on === 'boolean')
        .map(([field, on]) => `${on ? 'Switched on' : 'Switched off'} ${featureName(field)}`);
      return changes.length > 0 ? `${changes.join('; ')} for ${org}` : `Changed the features of ${org}`;
    },
    example: { target: 'Demo Shop Ltd', detail: { featureCisBills: true } },
  },
  'admin.unlock': {
    describe: (line) => {
      const cleared = numberOf(line.detail, 'attemptsCleared');
      return `Lifted the sign-in lock on ${line.target ?? 'a user'}${cleared === null ? '' : ` (${formatCount(cleared, 'failed attempt')} forgotten)`}`;
    },
    example: { target: 'sam', detail: { userId: 4, attemptsCleared: 6 } },
  },
  'admin.user.update': {
    describe: (line) => {
      const changed = Array.isArray(line.detail['changed'])
        ? (line.detail['changed'] as unknown[]).map((f) => USER_FIELDS[String(f)] ?? String(f))
        : [];
      const what = changed.length > 0 ? changed.join(' and ') : 'details';
      return `Changed the ${what} of user ${line.target ?? ''}`.trim();
    },
    example: { target: 'sam', detail: { userId: 4, changed: ['username', 'email'] } },
  },
  'admin.user.admin': {
    describe: (line) =>
      line.detail['isAdmin'] === true
        ? `Made ${line.target ?? 'a user'} an administrator`
        : `Removed administrator rights from ${line.target ?? 'a user'}`,
    example: { target: 'sam', detail: { userId: 4, changed: ['isAdmin'], isAdmin: true } },
  },
  'admin.write.settle': {
    describe: (line) => {
      const after = recordOf(line.detail, 'after');
      const state = after ? textOf(after, 'state') : null;
      const writeId = numberOf(line.detail, 'writeId');
      const what = writeId === null ? 'a change waiting for review' : `change ${writeId} waiting for review`;
      if (textOf(line.detail, 'action') === 'retry') return `Sent ${what} to Xero again`;
      return `Settled ${what}: marked ${state ? (WRITE_STATES[state] ?? state) : 'settled'}`;
    },
    example: {
      target: 'write 12',
      detail: {
        writeId: 12,
        kind: 'payment',
        before: { state: 'needs_review', xeroId: null, error: null },
        after: { state: 'confirmed', xeroId: null, error: null },
      },
    },
  },
});

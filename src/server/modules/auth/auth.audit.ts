/** The activity-log lines of sign-in, accounts and two-step sign-in, in words (src/server/modules/audit/describe.ts). */
import { defineAuditActions, failureText, numberOf, textOf } from '../audit/describe';

/** How a sign-in was made, as `user.login` records it in `detail.method`. */
const SIGN_IN_METHODS: Record<string, string> = {
  password: 'with a password',
  xero: 'with Xero',
  'password+totp': 'with a password and a code from the authenticator app',
  'password+recovery': 'with a password and a recovery code',
};

export const authAuditActions = defineAuditActions({
  'user.register': {
    describe: (line) =>
      line.detail['isAdmin'] === true
        ? 'Created a Ledgerlink account (the first one, so an administrator)'
        : 'Created a Ledgerlink account',
    example: { detail: { isAdmin: true } },
  },
  'user.login': {
    describe: (line) => {
      const method = textOf(line.detail, 'method');
      const how = method ? (SIGN_IN_METHODS[method] ?? '') : '';
      if (line.result === 'failure')
        return `${method === 'xero' ? 'Sign in with Xero' : 'Sign-in'} refused${failureText(line)}`;
      return `Signed in${how ? ` ${how}` : ''}`;
    },
    example: { detail: { method: 'password+totp' } },
  },
  'user.logout': {
    describe: () => 'Signed out',
    example: {},
  },
  'user.mfa.challenge': {
    describe: (line) =>
      textOf(line.detail, 'step') === 'setup'
        ? 'Signed in with a password; asked to set up two-step sign-in before going on'
        : 'Signed in with a password; asked for the code from the authenticator app',
    example: { detail: { step: 'verify' } },
  },
  'user.mfa.setup': {
    describe: () => 'Started setting up two-step sign-in (a new key for the authenticator app)',
    example: {},
  },
  'user.mfa.enable': {
    describe: (line) =>
      line.result === 'failure'
        ? `Turning on two-step sign-in refused${failureText(line)}`
        : 'Turned on two-step sign-in',
    example: {},
  },
  'user.mfa.verify': {
    describe: (line) => {
      if (line.result === 'failure') return `Sign-in code refused${failureText(line)}`;
      if (textOf(line.detail, 'method') !== 'recovery')
        return 'Confirmed sign-in with a code from the authenticator app';
      const left = numberOf(line.detail, 'recoveryCodesLeft');
      return `Confirmed sign-in with a recovery code${left === null ? '' : ` (${left} left)`}`;
    },
    example: { detail: { method: 'recovery', recoveryCodesLeft: 7 } },
  },
  'user.mfa.disable': {
    describe: (line) =>
      line.result === 'failure'
        ? `Turning off two-step sign-in refused${failureText(line)}`
        : `Turned off two-step sign-in (confirmed with ${textOf(line.detail, 'proof') === 'password' ? 'the password' : 'a code'})`,
    example: { detail: { proof: 'password' } },
  },
  'user.mfa.recovery_codes': {
    describe: (line) =>
      line.result === 'failure'
        ? `New recovery codes refused${failureText(line)}`
        : 'Made new recovery codes (the old ones stopped working)',
    example: {},
  },
});

import { ShieldAlert } from 'lucide-react';
import { useState } from 'react';
import type { MfaEnableResponse } from '@/shared/mfa';
import { useSignedIn } from '@/client/lib/auth';
import { Button } from '@/client/components/ui/button';
import { MfaSetup } from './mfa-setup';
import { RecoveryCodes } from './recovery-codes';

/**
 * REQUIRE_MFA_FOR_ADMINS: an administrator who signed in with a password sets two-step sign-in up before
 * anything else; the session becomes whole when the first code is confirmed. `onShowingCodes` keeps the
 * page from moving on while the recovery codes are on screen.
 */
export function MfaRequiredSetup({
  onCancel,
  onShowingCodes,
}: {
  onCancel: () => void;
  onShowingCodes: (showing: boolean) => void;
}) {
  const signedIn = useSignedIn();
  const [enabled, setEnabled] = useState<MfaEnableResponse | null>(null);

  return (
    <div className="grid gap-5">
      <div className="flex items-start gap-3">
        <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-warning-soft text-warning-foreground">
          <ShieldAlert aria-hidden className="size-5" />
        </span>
        <div>
          <h2 className="text-lg font-semibold leading-tight">Set up two-step sign-in</h2>
          <p className="mt-1 text-sm text-muted-foreground">
            Administrators of this Ledgerlink must use two-step sign-in. Set it up now to continue: after your
            password, you will also enter a code from an app on your phone.
          </p>
        </div>
      </div>
      {enabled ? (
        <RecoveryCodes
          codes={enabled.recoveryCodes}
          username={enabled.user.username}
          doneLabel="I have saved my codes, continue"
          onDone={() => {
            onShowingCodes(false);
            signedIn(enabled.user);
          }}
        />
      ) : (
        <>
          <MfaSetup
            startLabel="Set up now"
            onEnabled={(result) => {
              onShowingCodes(true);
              setEnabled(result);
            }}
          />
          <Button
            type="button"
            variant="ghost"
            size="sm"
            className="-ml-3 justify-self-start"
            onClick={onCancel}
          >
            Back to sign in
          </Button>
        </>
      )}
    </div>
  );
}

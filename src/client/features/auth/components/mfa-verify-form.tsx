import { zodResolver } from '@hookform/resolvers/zod';
import { ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { isRecoveryCode, isTotpCode, MFA_TEXTS, mfaCodeSchema } from '@/shared/mfa';
import { getMessage } from '@/client/lib/api-client';
import { Button } from '@/client/components/ui/button';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { useVerifyMfa } from '../api/verify-mfa';

const totpFormSchema = z.object({ code: mfaCodeSchema.refine(isTotpCode, MFA_TEXTS.codeFormat) });
const recoveryFormSchema = z.object({ code: mfaCodeSchema.refine(isRecoveryCode, MFA_TEXTS.recoveryFormat) });
type CodeForm = z.infer<typeof totpFormSchema>;

/** The code field and its Verify button; keyed by mode so each mode gets its own validation. */
function VerifyCodeForm({ recovery }: { recovery: boolean }) {
  const verify = useVerifyMfa();
  const form = useForm<CodeForm>({
    resolver: zodResolver(recovery ? recoveryFormSchema : totpFormSchema),
    defaultValues: { code: '' },
  });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit((values) =>
    verify.mutate(values, {
      onError: (error) => {
        form.setError('code', { message: getMessage(error, 'Sign-in failed') });
        form.setValue('code', '');
        form.setFocus('code');
      },
    }),
  );

  return (
    <form
      className="grid gap-4"
      noValidate
      onSubmit={(event) => void onSubmit(event)}
      aria-label="Two-step sign-in"
    >
      <FormField label={recovery ? 'Recovery code' : 'Authentication code'} error={errors.code?.message}>
        <Input
          autoFocus
          autoComplete={recovery ? 'off' : 'one-time-code'}
          inputMode={recovery ? 'text' : 'numeric'}
          autoCapitalize="none"
          spellCheck={false}
          maxLength={recovery ? 24 : 7}
          className="font-mono tracking-widest"
          {...form.register('code')}
        />
      </FormField>
      <Button type="submit" disabled={verify.isPending} className="w-full">
        {verify.isPending ? <Spinner className="size-4 text-current" label="Checking the code" /> : null}
        Verify
      </Button>
    </form>
  );
}

/** The second step of a password sign-in: a code from the app, or one of the recovery codes. */
export function MfaVerifyForm({ onCancel }: { onCancel: () => void }) {
  const [recovery, setRecovery] = useState(false);
  return (
    <div className="grid gap-5">
      <div className="flex items-start gap-3">
        <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-accent text-accent-foreground">
          <ShieldCheck aria-hidden className="size-5" />
        </span>
        <div>
          <h2 className="text-lg font-semibold leading-tight">Two-step sign-in</h2>
          <p className="mt-1 text-sm text-muted-foreground">
            {recovery
              ? 'Enter one of the recovery codes you saved when you turned two-step sign-in on. Each code works once.'
              : 'Enter the 6-digit code from your authenticator app.'}
          </p>
        </div>
      </div>
      <VerifyCodeForm key={recovery ? 'recovery' : 'totp'} recovery={recovery} />
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <Button
          type="button"
          variant="link"
          className="h-auto px-0"
          onClick={() => setRecovery((value) => !value)}
        >
          {recovery ? 'Use the authenticator app' : 'Use a recovery code'}
        </Button>
        <Button type="button" variant="ghost" size="sm" onClick={onCancel}>
          Back to sign in
        </Button>
      </div>
    </div>
  );
}

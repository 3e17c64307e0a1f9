import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { loginRequestSchema, type LoginRequest } from '@/shared/auth';
import { isMfaChallenge, type LoginResponse } from '@/shared/mfa';
import { AUTH_FALLBACKS, useLogin } from '@/client/lib/auth';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { Button } from '@/client/components/ui/button';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';

export type MfaStep = 'verify' | 'setup';

/** The step a sign-in answer still asks for, or null when it signed the user in. */
export function getMfaStep(answer: LoginResponse): MfaStep | null {
  if (!isMfaChallenge(answer)) return null;
  return 'mfaRequired' in answer ? 'verify' : 'setup';
}

export function LoginForm({ onMfaStep }: { onMfaStep: (step: MfaStep) => void }) {
  const login = useLogin();
  const form = useForm<LoginRequest>({
    resolver: zodResolver(loginRequestSchema),
    defaultValues: { username: '', password: '' },
  });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit((values) =>
    login.mutate(values, {
      onSuccess: (answer) => {
        const step = getMfaStep(answer);
        if (step) onMfaStep(step);
      },
      onError: (error) => {
        toast({
          title: AUTH_FALLBACKS.login,
          description: getMessage(error, AUTH_FALLBACKS.login),
          variant: 'destructive',
        });
        form.setValue('password', '');
        form.setFocus('password');
      },
    }),
  );

  return (
    <form className="grid gap-4" noValidate onSubmit={(event) => void onSubmit(event)} aria-label="Sign in">
      <FormField label="Username" error={errors.username?.message}>
        <Input
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          {...form.register('username')}
        />
      </FormField>
      <FormField label="Password" error={errors.password?.message}>
        <Input type="password" autoComplete="current-password" {...form.register('password')} />
      </FormField>
      <Button type="submit" disabled={login.isPending} className="mt-1 w-full">
        {login.isPending ? <Spinner className="size-4 text-current" label="Signing in" /> : null}
        Sign in
      </Button>
    </form>
  );
}

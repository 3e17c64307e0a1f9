import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { optionalEmailSchema } from '@/shared/admin';
import { PASSWORD_MIN_LENGTH, registerRequestSchema } from '@/shared/auth';
import { AUTH_FALLBACKS, useRegister } from '@/client/lib/auth';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { Button } from '@/client/components/ui/button';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { getMfaStep, type MfaStep } from './login-form';

const registerFormSchema = registerRequestSchema
  .extend({
    email: optionalEmailSchema,
    confirmPassword: z.string().min(1, 'Please confirm your password'),
  })
  .refine((values) => values.password === values.confirmPassword, {
    message: 'Passwords do not match',
    path: ['confirmPassword'],
  });

type RegisterFormInput = z.input<typeof registerFormSchema>;
type RegisterFormValues = z.output<typeof registerFormSchema>;

export function RegisterForm({ onMfaStep }: { onMfaStep: (step: MfaStep) => void }) {
  const registerUser = useRegister();
  const form = useForm<RegisterFormInput, unknown, RegisterFormValues>({
    resolver: zodResolver(registerFormSchema),
    defaultValues: { username: '', email: '', password: '', confirmPassword: '' },
  });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit(({ username, email, password }) =>
    registerUser.mutate(
      { username, password, ...(email ? { email } : {}) },
      {
        onSuccess: (answer) => {
          const step = getMfaStep(answer);
          if (step) onMfaStep(step);
        },
        onError: (error) => {
          toast({
            title: AUTH_FALLBACKS.register,
            description: getMessage(error, AUTH_FALLBACKS.register),
            variant: 'destructive',
          });
        },
      },
    ),
  );

  return (
    <form
      className="grid gap-4"
      noValidate
      onSubmit={(event) => void onSubmit(event)}
      aria-label="Create account"
    >
      <FormField
        label="Username"
        error={errors.username?.message}
        hint="3 to 64 characters: letters, digits and . _ @ + -"
      >
        <Input
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          {...form.register('username')}
        />
      </FormField>
      <FormField label="Email (optional)" error={errors.email?.message}>
        <Input type="email" autoComplete="email" {...form.register('email')} />
      </FormField>
      <FormField
        label="Password"
        error={errors.password?.message}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters`}
      >
        <Input type="password" autoComplete="new-password" {...form.register('password')} />
      </FormField>
      <FormField label="Confirm password" error={errors.confirmPassword?.message}>
        <Input type="password" autoComplete="new-password" {...form.register('confirmPassword')} />
      </FormField>
      <Button type="submit" disabled={registerUser.isPending} className="mt-1 w-full">
        {registerUser.isPending ? <Spinner className="size-4 text-current" label="Creating account" /> : null}
        Create account
      </Button>
    </form>
  );
}

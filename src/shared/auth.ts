import { z } from 'zod';
import { emailSchema, usernameSchema } from './admin';
import { textSchema } from './input';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export const passwordSchema = textSchema(PASSWORD_MAX_LENGTH)
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `Password must be at most ${PASSWORD_MAX_LENGTH} characters`);

/** GET /api/auth/current-user and GET /api/user. */
export const currentUserSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string().nullable(),
  isAdmin: z.boolean(),
  isXeroUser: z.boolean(),
});
export type CurrentUser = z.infer<typeof currentUserSchema>;

/** POST /api/login and POST /api/auth/login. Only presence is checked: the rules apply at registration. */
export const loginRequestSchema = z.object({
  username: textSchema(254).trim().min(1, 'Username is required'),
  password: textSchema(PASSWORD_MAX_LENGTH).min(1, 'Password is required'),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

/** POST /api/register. */
export const registerRequestSchema = z.object({
  username: usernameSchema,
  password: passwordSchema,
  email: emailSchema.optional(),
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

/** POST /api/logout, /api/auth/logout. */
export const logoutResponseSchema = z.object({ ok: z.literal(true) });

/** GET /api/config: how the server runs, for the sign-in page. */
export const appConfigSchema = z.object({
  mode: z.enum(['demo', 'live']),
  demoLogin: z.boolean(),
});
export type AppConfig = z.infer<typeof appConfigSchema>;

/** GET /api/auth/dev-credentials: the development helper of docs/product/shell.md §6 (demo mode only). */
export const devCredentialsSchema = z.object({ username: z.string(), password: z.string() });

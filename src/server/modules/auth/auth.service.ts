import fs from 'node:fs';
import path from 'node:path';
import type { CurrentUser, RegisterRequest } from '../../../shared/auth';
import { AppError } from '../../lib/app-error';
import { randomToken } from '../../lib/crypto';
import type { AuditLog } from '../audit/audit';
import type { LoginLimiter } from './login-limiter';
import {
  COMMON_PASSWORD_MESSAGE,
  getDummyHash,
  hashPassword,
  isCommonPassword,
  verifyPassword,
} from './password';
import type { UsersRepository } from './auth.repository';

export const INVALID_CREDENTIALS_MESSAGE = 'Invalid username or password';

type UserRow = NonNullable<Awaited<ReturnType<UsersRepository['findById']>>>;

export function toCurrentUser(
  user: Pick<UserRow, 'id' | 'username' | 'email' | 'isAdmin' | 'xeroUserId'>,
): CurrentUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    isAdmin: user.isAdmin,
    isXeroUser: user.xeroUserId !== null,
  };
}

export function createAuthService(deps: { users: UsersRepository; limiter: LoginLimiter; audit: AuditLog }) {
  const { users, limiter, audit } = deps;
  return {
    async register(input: RegisterRequest, ip: string): Promise<UserRow> {
      if (isCommonPassword(input.password)) throw new AppError('VALIDATION_ERROR', COMMON_PASSWORD_MESSAGE);
      if (await users.findByUsername(input.username))
        throw new AppError('CONFLICT', 'Username already exists');
      const user = await users.create({
        username: input.username,
        email: input.email ? input.email : null,
        passwordHash: await hashPassword(input.password),
      });
      if (!user) throw new AppError('CONFLICT', 'Username already exists');
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.register',
        result: 'success',
        ip,
        detail: { isAdmin: user.isAdmin },
      });
      return user;
    },

    /** Same answer, and about the same time, for an unknown user and a wrong password. */
    async login(username: string, password: string, ip: string, deviceToken?: string): Promise<UserRow> {
      // A browser that signed in to this account before is held to its own limit only (login-limiter.ts).
      const device = limiter.readDevice(username, deviceToken);
      const attempt = await limiter.begin(username, ip, device);
      if ('waitSeconds' in attempt) {
        await audit.record({
          username,
          action: 'user.login',
          result: 'failure',
          ip,
          detail: { reason: 'rate_limited' },
        });
        throw new AppError(
          'RATE_LIMITED',
          `Too many sign-in attempts. Try again in ${Math.ceil(attempt.waitSeconds / 60)} minutes.`,
          undefined,
          {
            retryAfterSeconds: attempt.waitSeconds,
          },
        );
      }
      const user = await users.findByUsername(username);
      const ok = user?.passwordHash
        ? await verifyPassword(user.passwordHash, password)
        : (await verifyPassword(await getDummyHash(), password), false);
      await limiter.finish(attempt.id, ok);
      if (!user || !ok) {
        await audit.record({
          userId: user?.id ?? null,
          username,
          action: 'user.login',
          result: 'failure',
          ip,
          detail: { reason: 'invalid_credentials' },
        });
        throw new AppError('UNAUTHENTICATED', INVALID_CREDENTIALS_MESSAGE);
      }
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.login',
        result: 'success',
        ip,
        detail: { method: 'password' },
      });
      return user;
    },

    /** The activity line of a sign-out (its session already ended). */
    async recordLogout(user: { id: number; username: string }, ip: string): Promise<void> {
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.logout',
        result: 'success',
        ip,
      });
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;

/**
 * The first administrator. ADMIN_USERNAME/ADMIN_PASSWORD create it at first start; otherwise, in demo mode
 * only, an `admin` with a random password is created, printed once, and kept (0600, under DATA_DIR) for the
 * development helper of docs/product/shell.md §6. Returns the demo credentials when the helper may use them.
 */
export async function ensureBootstrapAdmin(options: {
  users: UsersRepository;
  admin: { username: string; password: string } | undefined;
  demo: boolean;
  dataDir: string;
  print: (line: string) => void;
}): Promise<{ username: string; password: string } | undefined> {
  const { users } = options;
  const file = path.join(options.dataDir, 'demo-admin.json');
  if ((await users.count()) === 0) {
    if (options.admin) {
      await users.create({
        username: options.admin.username,
        email: null,
        passwordHash: await hashPassword(options.admin.password),
        isAdmin: true,
      });
      return undefined;
    }
    if (!options.demo) return undefined;
    const credentials = { username: 'admin', password: randomToken(12) };
    await users.create({
      username: credentials.username,
      email: null,
      passwordHash: await hashPassword(credentials.password),
      isAdmin: true,
    });
    fs.mkdirSync(options.dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
    options.print(
      `Demo administrator created: username "${credentials.username}", password "${credentials.password}" (shown once; also used by the sign-in page's "Try the demo" button)`,
    );
    return credentials;
  }
  if (!options.demo || !fs.existsSync(file)) return undefined;
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { username: string; password: string };
    const user = await users.findByUsername(saved.username);
    return user?.passwordHash && (await verifyPassword(user.passwordHash, saved.password))
      ? saved
      : undefined;
  } catch {
    return undefined;
  }
}

import { USERNAME_MIN_LENGTH, usernameSchema } from '../../../shared/admin';
import type { UsersRepository } from './auth.repository';

/**
 * The username rule's form of what Xero says about the person (their email, usually): only the characters the
 * rule allows, at most 50 of them so a number fits after it, and 'xero-user' when too little is left (issue 16:
 * an email such as `"><svg/onload=alert(9)>@e.co` is Xero's to allow, not a username of ours).
 */
export function deriveUsername(wanted: string): string {
  const kept = wanted
    .replace(/[^A-Za-z0-9._@+-]+/g, '')
    .slice(0, 50)
    .replace(/^[.@+-]+|[.@+-]+$/g, '');
  const base = kept.length >= USERNAME_MIN_LENGTH ? kept : 'xero-user';
  return usernameSchema.safeParse(base).success ? base : 'xero-user';
}

/** A free username from the Xero profile: the derived one, or it with a number after it. */
async function pickUsername(users: Pick<UsersRepository, 'findByUsername'>, wanted: string): Promise<string> {
  const base = deriveUsername(wanted);
  if (!(await users.findByUsername(base))) return base;
  for (let i = 2; i < 1000; i += 1) {
    const candidate = `${base}-${i}`;
    if (!(await users.findByUsername(candidate))) return candidate;
  }
  return `${base}-${Date.now()}`;
}

/** What Xero's ID token says about the person. */
export interface XeroProfile {
  email?: string | undefined;
  preferred_username?: string | undefined;
}

/** The users of Sign in with Xero (docs/product/shell.md §8): found by Xero user id, linked, or created. */
export function createXeroSignInUsers(users: UsersRepository) {
  return {
    /**
     * The user a Xero sign-in is for: the one linked to this Xero user; else the signed-in user who started
     * the sign-in (`linkUserId`), now linked; else a new one with no password, named from the profile.
     */
    async findOrCreate(xeroUserId: string, profile: XeroProfile, linkUserId: number | null) {
      const linked = await users.findByXeroUserId(xeroUserId);
      if (linked) return linked;
      if (linkUserId) {
        await users.linkXero(linkUserId, xeroUserId);
        const user = await users.findById(linkUserId);
        if (user) return user;
      }
      const username = await pickUsername(
        users,
        profile.email ?? profile.preferred_username ?? `xero-${xeroUserId.slice(0, 8)}`,
      );
      return users.create({ username, email: profile.email ?? null, passwordHash: null, xeroUserId });
    },
  };
}
export type XeroSignInUsers = ReturnType<typeof createXeroSignInUsers>;

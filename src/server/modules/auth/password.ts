import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';

/** OWASP's argon2id minimum: 19 MiB memory, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = {
  algorithm: 2 /* Algorithm.Argon2id (a const enum isolatedModules cannot read) */,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

const COMMON = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));

export const COMMON_PASSWORD_MESSAGE = 'This password is too common. Choose one that is harder to guess.';

/** True for a password found in the list of the ~50,000 most used ones, or one character repeated. */
export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  return COMMON.has(lower) || /^(.)\1+$/.test(password) || COMMON.has(lower.replace(/\d+$/, ''));
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Verified against when the user does not exist, so an unknown user costs the same time as a wrong password. */
let dummyHash: Promise<string> | undefined;
export function getDummyHash(): Promise<string> {
  dummyHash ??= hashPassword('ledgerlink-no-such-user-password');
  return dummyHash;
}

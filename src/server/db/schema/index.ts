export * from './users.ts';
export * from './xero.ts';
export * from './audit.ts';
export * from './cache.ts';
export * from './ledger.ts';
export * from './mfa.ts';
export * from './cache-versions.ts';
export * from './xero-gate.ts';

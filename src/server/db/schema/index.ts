export * from './users.ts';
export * from './xero.ts';
export * from './audit.ts';

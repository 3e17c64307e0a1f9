/**
 * The response schemas of the shell's own calls (current user, connection, organisations, feature flags,
 * sign-in). Only ever imported dynamically, through `lazySchema`: they bring zod, which stays out of the
 * first screen's download (bench/results.md §3) and arrives beside the first request that needs it.
 */
export { adminCheckResponseSchema } from '@/shared/admin';
export { appConfigSchema, currentUserSchema, devCredentialsSchema } from '@/shared/auth';
export { connectionStatusSchema } from '@/shared/connection';
export { loginResponseSchema } from '@/shared/mfa';
export { featureFlagsResponseSchema, userOrganizationsResponseSchema } from '@/shared/organizations';

/** Admin data is not organisation-scoped: one list for the whole installation. */
export const adminKeys = {
  all: ['admin'] as const,
  organizations: ['admin', 'organizations'] as const,
  users: ['admin', 'users'] as const,
  audit: (filters: object) => ['admin', 'audit', filters] as const,
};

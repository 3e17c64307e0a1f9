/**
 * Query keys of the Today page (issue 47). Its rows span every organisation of the signed-in user, so the key
 * names no organisation; the server lists only the user's own.
 */
export const todayKeys = {
  rows: ['practice', 'today'] as const,
};

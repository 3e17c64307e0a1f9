import { describe, expect, it } from 'vitest';
import { AUDIT_MAX_LIMIT, auditQuerySchema } from './admin';

describe('auditQuerySchema (the activity log query the server reads and the admin screen sends)', () => {
  it('reads the query string: numbers from text, 500 lines unless asked', () => {
    expect(
      auditQuerySchema.parse({
        action: 'settings.',
        userId: '3',
        organizationId: '7',
        from: '2025-04-01',
        to: '2025-04-30',
      }),
    ).toEqual({
      action: 'settings.',
      userId: 3,
      organizationId: 7,
      from: '2025-04-01',
      to: '2025-04-30',
      limit: 500,
    });
  });

  it('refuses more lines than the log answers at once, and dates that are not days', () => {
    expect(auditQuerySchema.safeParse({ limit: String(AUDIT_MAX_LIMIT) }).success).toBe(true);
    expect(auditQuerySchema.safeParse({ limit: String(AUDIT_MAX_LIMIT + 1) }).success).toBe(false);
    expect(auditQuerySchema.safeParse({ from: '01/04/2025' }).success).toBe(false);
    expect(auditQuerySchema.safeParse({ userId: '0' }).success).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { accountSchema } from '@/shared/settings';
import { getAccountIdPreview, getAccountLabel } from './account-labels';

describe('account labels', () => {
  it('labels accounts as "name (code)"', () => {
    expect(getAccountLabel({ name: 'Subcontractors', code: '320' })).toBe('Subcontractors (320)');
    expect(getAccountLabel(accountSchema.parse({ id: 'a', name: 'Business card' }))).toBe('Business card');
  });

  it('previews the first 8 characters of an account id', () => {
    expect(getAccountIdPreview('0123456789abcdef')).toBe('01234567');
    expect(getAccountIdPreview(null)).toBe('');
  });
});

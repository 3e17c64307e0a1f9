import { describe, expect, it } from 'vitest';
import { formatCount } from './counts';

describe('formatCount (issue 33 item 6)', () => {
  it('says one thing in the singular and any other number in the plural', () => {
    expect(formatCount(1, 'bill')).toBe('1 bill');
    expect(formatCount(0, 'bill')).toBe('0 bills');
    expect(formatCount(2, 'payment')).toBe('2 payments');
  });

  it('takes an irregular plural and groups thousands as the rest of the screens do', () => {
    expect(formatCount(1, 'entry', 'entries')).toBe('1 entry');
    expect(formatCount(3, 'entry', 'entries')).toBe('3 entries');
    expect(formatCount(5068, 'invoice')).toBe('5,068 invoices');
  });
});

import { describe, expect, it } from 'vitest';
import { chooseDefaultsByName, findReferenceByName } from './default-choices';

const accounts = [
  { id: 'a-200', code: '200', name: 'Sales' },
  { id: 'a-260', code: '260', name: 'Other Revenue' },
  { id: 'a-cash', code: '', name: 'Cash' },
  { id: 'a-cash-2', code: '', name: 'Cash' },
];

describe('findReferenceByName', () => {
  it('finds an item by the name the select shows, whatever the case and spacing', () => {
    expect(findReferenceByName(accounts, '  other   REVENUE ')?.id).toBe('a-260');
  });

  it('finds an account by its code or by "name (code)"', () => {
    expect(findReferenceByName(accounts, '260')?.id).toBe('a-260');
    expect(findReferenceByName(accounts, 'Sales (200)')?.id).toBe('a-200');
  });

  it('takes the first of two items with the same name, as the select lists them', () => {
    expect(findReferenceByName(accounts, 'Cash')?.id).toBe('a-cash');
  });

  it('finds nothing for a name the list does not have, or an empty name', () => {
    expect(findReferenceByName(accounts, 'Sale')).toBeUndefined();
    expect(findReferenceByName(accounts, '  ')).toBeUndefined();
    // A code is never matched against items without one.
    expect(findReferenceByName(accounts, '')).toBeUndefined();
  });
});

describe('chooseDefaultsByName', () => {
  it('picks each named default from its own list and reports the names no list has', () => {
    const choice = chooseDefaultsByName(
      {
        defaultSalesAccountId: 'Sales',
        defaultCashAccountId: 'Cash',
        defaultBillAccountId: 'Subcontractors',
        defaultContactId: 'Daily Sales',
      },
      {
        defaultSalesAccountId: accounts,
        defaultCashAccountId: [{ id: 'b-cash', name: 'Cash' }],
        defaultBillAccountId: [{ id: 'c-310', code: '310', name: 'Cost of Goods Sold' }],
      },
    );
    expect(choice.ids).toEqual({ defaultSalesAccountId: 'a-200', defaultCashAccountId: 'b-cash' });
    expect(choice.notFound).toEqual(['defaultBillAccountId', 'defaultContactId']);
  });

  it('never picks from another field’s list', () => {
    const choice = chooseDefaultsByName(
      { defaultStockJournalCostAccountId: 'Sales' },
      { defaultSalesAccountId: accounts },
    );
    expect(choice).toEqual({ ids: {}, notFound: ['defaultStockJournalCostAccountId'] });
  });
});

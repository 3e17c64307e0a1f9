import { getDefaultBillReference } from '@/shared/cis-bills';

/** How the amount typed is meant: the bill's gross, or the 80 % net the subcontractor receives. */
export type AmountBasis = 'gross' | 'net';

/**
 * The Create CIS Bills form (react-hook-form): the settings every bill of the batch shares, and the entry row
 * of the next bill. Its checks are the shared rules (`validateBillEntry`), shown as the toasts
 * docs/product/features.md §8 names, when a bill is added.
 */
export interface BillForm {
  date: string;
  reference: string;
  accountCode: string;
  createAsDraft: boolean;
  contactId: string;
  amount: string;
  basis: AmountBasis;
  /** Issue 42: the materials of the next bill, excluding VAT ('' for none), and the account they go on. */
  materials: string;
  materialsAccountCode: string;
  /** Issue 42: the person confirms a bill without a deduction for a contact Xero does not mark as CIS. */
  withoutCisDeduction: boolean;
}

export function createBillForm(today: string): BillForm {
  return {
    date: today,
    reference: getDefaultBillReference(today),
    accountCode: '',
    createAsDraft: true,
    contactId: '',
    amount: '',
    basis: 'gross',
    materials: '',
    materialsAccountCode: '',
    withoutCisDeduction: false,
  };
}

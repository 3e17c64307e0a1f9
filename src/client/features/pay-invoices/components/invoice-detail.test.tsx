import { render, screen } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import type { Invoice } from '@/shared/pay-invoices';
import { InvoiceDetail } from './invoice-detail';

const invoice: Invoice = {
  invoiceId: 'inv-1',
  invoiceNumber: 'INV-0042',
  contactName: 'Acme Builders Ltd',
  date: '2025-11-01',
  dueDate: '2025-11-15',
  status: 'AUTHORISED',
  totalAmount: 120,
  amountDue: 120,
  currency: 'GBP',
  attachments: [],
};

describe('InvoiceDetail', () => {
  it('marks up its fields as a proper definition list (axe definition-list, dlitem; issue 17 item 17)', async () => {
    const { container } = render(<InvoiceDetail invoice={invoice} today="2025-11-20" />);
    const results = await axe.run(container, { runOnly: ['definition-list', 'dlitem'] });
    expect(results.violations.map((v) => v.id)).toEqual([]);
    expect(screen.getByText('Client').closest('div')?.parentElement?.tagName).toBe('DL');
  });

  it('says what is left when a penny is still due, instead of "Fully Paid" (issue 17 item 15)', () => {
    render(<InvoiceDetail invoice={{ ...invoice, amountDue: 0.01 }} today="2025-11-20" />);
    expect(screen.getByText('£0.01 left to pay')).toBeInTheDocument();
    expect(screen.queryByText('Fully Paid')).not.toBeInTheDocument();
  });
});

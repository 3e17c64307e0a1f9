import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Table, TableBody, TableCell, TableRow } from './table';

describe('Table', () => {
  it('puts the table in a labelled, focusable scroll frame (axe scrollable-region-focusable; issue 17 item 17)', () => {
    render(
      <Table aria-label="Draft CIS bills">
        <TableBody>
          <TableRow>
            <TableCell>£1,000.00</TableCell>
          </TableRow>
        </TableBody>
      </Table>,
    );
    const frame = screen.getByRole('region', { name: 'Draft CIS bills' });
    expect(frame).toHaveAttribute('tabindex', '0');
    expect(frame).toContainElement(screen.getByRole('table', { name: 'Draft CIS bills' }));
  });
});

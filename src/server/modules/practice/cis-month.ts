import { pickCisMonth, type CisMonthLike, type CisRowMonth } from '../../../shared/practice';
import type { RequestContext } from '../organizations/tenancy';

/**
 * The one place the Today page reads the CIS month (issue 47): CIS Returns' own list of months
 * (cis-returns.service.ts `listMonths`, the screen's GET /api/xero/cis/months), narrowed to the month the row
 * shows (`pickCisMonth`: the overdue return with the largest penalty, else the month the screen opens on). The
 * months' states and penalties are CIS Returns' alone; whatever they become, this is the only caller to change.
 */
export function createCisMonthReader(
  listMonths: (ctx: RequestContext, options: { refresh: boolean }) => Promise<{ months: CisMonthLike[] }>,
) {
  return async function readCisMonth(ctx: RequestContext): Promise<CisRowMonth | null> {
    const { months } = await listMonths(ctx, { refresh: false });
    return pickCisMonth(months);
  };
}

/**
 * A count and its noun, read right for one and for many: "1 bill", "3 bills", "1,000 invoices" (issue 33 item
 * 6). Every screen and message that shows how many of something there are says it through this, never
 * "{n} bill(s)" nor "1 bills".
 */
export function formatCount(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-GB')} ${count === 1 ? one : many}`;
}

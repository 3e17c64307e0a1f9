/**
 * The one way the client names an organisation in a call. Every organisation-scoped request carries the
 * organisation the screen shows (`?org=`), so a switch made in another tab can never send a payment, a bill
 * or a journal to a different organisation than the one on screen; the server checks the user may use it.
 */

/** Our numeric organisation id, as the screens hold it (a number, or its digits from a URL). */
export type OrgId = number | string;

/**
 * `path?org=<orgId>&…query`. Query values that are `undefined` or empty are left out. An empty organisation
 * id is a programming error the screen must not send (docs/product/features.md §5 "Organization IDs must be
 * non-empty strings, else 'Invalid organization ID'").
 */
export function orgUrl(
  path: string,
  orgId: OrgId | null | undefined,
  query: Record<string, string | undefined> = {},
): string {
  const id = orgId === null || orgId === undefined ? '' : String(orgId).trim();
  if (id === '') throw new Error('Invalid organization ID');
  const params = new URLSearchParams({ org: id });
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(key, value);
  return `${path}?${params.toString()}`;
}

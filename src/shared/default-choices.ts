/**
 * Choosing an organisation's Settings defaults by the names the Settings screen shows (issue 33): demo mode's
 * first start picks, for each demo organisation, what a person would pick in the Settings selects, and saves
 * it through `PATCH /api/xero/settings` like the Save button, so Xero's data and the Settings rules check it.
 * Zod-free: pure matching of names against the reference lists.
 */
import type { DefaultIdField } from './connection-rules';

/** An item of a Settings reference list: an account, a VAT rate, a contact or a contact group. */
export interface ReferenceItem {
  id: string;
  name: string;
  code?: string;
}

/** The names a person would choose, one per id-valued default; a field left out is left unset. */
export type DefaultNames = Partial<Record<DefaultIdField, string>>;

/** The reference list each chosen field is picked from (the list its Settings select offers). */
export type ReferenceLists = Partial<Record<DefaultIdField, readonly ReferenceItem[]>>;

interface DefaultChoice {
  /** The ids to save, by field. */
  ids: Partial<Record<DefaultIdField, string>>;
  /** Fields whose named item is not in the list the select offers (not in Xero, archived, or not usable). */
  notFound: DefaultIdField[];
}

const normalize = (text: string) => text.trim().replace(/\s+/g, ' ').toLocaleLowerCase('en-GB');

/**
 * The item of `list` a person means by `name`: the one with that name (case and spacing ignored), or, for an
 * account, "Name (code)" or its code alone as the select shows it. The first of equal names wins, as a person
 * takes the first one the select lists.
 */
export function findReferenceByName(list: readonly ReferenceItem[], name: string): ReferenceItem | undefined {
  const wanted = normalize(name);
  if (wanted === '') return undefined;
  return (
    list.find((item) => normalize(item.name) === wanted) ??
    list.find(
      (item) =>
        item.code !== undefined &&
        item.code !== '' &&
        (normalize(item.code) === wanted || normalize(`${item.name} (${item.code})`) === wanted),
    )
  );
}

/** Picks, for each named default, the item of its reference list; names with no match are reported. */
export function chooseDefaultsByName(names: DefaultNames, lists: ReferenceLists): DefaultChoice {
  const ids: DefaultChoice['ids'] = {};
  const notFound: DefaultIdField[] = [];
  for (const [field, name] of Object.entries(names) as Array<[DefaultIdField, string | undefined]>) {
    if (name === undefined) continue;
    const item = findReferenceByName(lists[field] ?? [], name);
    if (item) ids[field] = item.id;
    else notFound.push(field);
  }
  return { ids, notFound };
}

/**
 * XML for the HMRC sandbox: HMRC's side of the Transaction Engine reads each request as a DOM and checks its
 * IRmark itself. It stands alone like the Xero sandbox (docs/architecture.md §6): nothing here is shared with the
 * app's HMRC client, so a misreading of HMRC's rules in the app shows up in the tests instead of being copied.
 */
import crypto from 'node:crypto';
import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

export function parse(text: string): Element {
  if (/<!DOCTYPE/i.test(text)) throw new Error('DOCTYPE not allowed');
  let failed: string | null = null;
  const doc = new DOMParser({
    onError: (level, msg) => {
      if (level !== 'warning') failed ??= msg.split('\n')[0] ?? msg;
    },
  }).parseFromString(text.replace(/\r\n?/g, '\n'), 'text/xml');
  if (failed || !doc.documentElement) throw new Error(failed ?? 'no root element');
  return doc.documentElement;
}

export const kids = (n: Node | null | undefined, name?: string): Element[] => {
  const out: Element[] = [];
  for (let c = n?.firstChild ?? null; c; c = c.nextSibling)
    if (c.nodeType === 1 && (name === undefined || (c as Element).localName === name)) out.push(c as Element);
  return out;
};

export const at = (n: Node | null | undefined, ...path: string[]): Element | null =>
  path.reduce<Element | null>((e, name) => (e ? (kids(e, name)[0] ?? null) : null), (n as Element) ?? null);

export const text = (n: Node | null | undefined): string => (n?.textContent ?? '').trim();

export function esc(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The IRmark HMRC computes on arrival (HMRC, "IRmark for Gateway Protocol services"): the Body with the namespaces
 * it inherits, without IRenvelope/IRheader/IRmark, in Canonical XML 1.0, SHA-1, base64 (and base32 on receipts).
 */
export function irmarkOf(root: Element): { base64: string; base32: string } | null {
  const body = kids(root, 'Body')[0];
  if (!body) return null;
  // Namespaces in scope at the Body, from the root down.
  const inherited = new Map<string, string>();
  for (const e of [root]) {
    for (let i = 0; i < e.attributes.length; i++) {
      const a = e.attributes.item(i);
      if (a?.name === 'xmlns') inherited.set('', a.value);
      else if (a?.name.startsWith('xmlns:')) inherited.set(a.name.slice(6), a.value);
    }
  }
  const attrEsc = (v: string) =>
    v
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/"/g, '&quot;')
      .replace(/\t/g, '&#x9;')
      .replace(/\n/g, '&#xA;')
      .replace(/\r/g, '&#xD;');
  const textEsc = (v: string) =>
    v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
  const write = (
    e: Element,
    parentRendered: Map<string, string>,
    parentScope: Map<string, string>,
  ): string => {
    const scope = new Map(parentScope);
    const plain: Array<[string, string, string]> = [];
    for (let i = 0; i < e.attributes.length; i++) {
      const a = e.attributes.item(i);
      if (!a) continue;
      if (a.name === 'xmlns') scope.set('', a.value);
      else if (a.name.startsWith('xmlns:')) scope.set(a.name.slice(6), a.value);
      else plain.push([a.namespaceURI ?? '', a.localName ?? a.name, `${a.name}="${attrEsc(a.value)}"`]);
    }
    const rendered = new Map(parentRendered);
    const ns: string[] = [];
    for (const prefix of [...scope.keys()].sort()) {
      const uri = scope.get(prefix) ?? '';
      if (prefix === 'xml') continue;
      const before = parentRendered.get(prefix) ?? (prefix === '' ? '' : undefined);
      if (before === uri) continue;
      if (prefix === '' && uri === '' && !parentRendered.has('')) continue;
      ns.push(prefix === '' ? `xmlns="${attrEsc(uri)}"` : `xmlns:${prefix}="${attrEsc(uri)}"`);
      rendered.set(prefix, uri);
    }
    plain.sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) : x[0] < y[0] ? -1 : 1));
    let out = `<${[e.tagName, ...ns, ...plain.map((p) => p[2])].join(' ')}>`;
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) {
        const child = c as Element;
        const parent = child.parentNode as Element | null;
        if (child.localName === 'IRmark' && parent?.localName === 'IRheader') continue;
        out += write(child, rendered, scope);
      } else if (c.nodeType === 3 || c.nodeType === 4) out += textEsc(c.nodeValue ?? '');
    }
    return `${out}</${e.tagName}>`;
  };
  const digest = crypto
    .createHash('sha1')
    .update(write(body, new Map(), inherited), 'utf8')
    .digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of digest) bits += b.toString(2).padStart(8, '0');
  let base32 = '';
  for (let i = 0; i < bits.length; i += 5)
    base32 += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return { base64: digest.toString('base64'), base32 };
}

/**
 * The IRmark (issue 43): HMRC's digest of a submission's Body, which it checks on arrival (error 2021 "The supplied
 * IRmark is incorrect", 2022 "IRMark not found") and quotes on its receipt.
 *
 * How HMRC specifies it ("HMRC IRmark: generic IRmark specification" and "IRmark for Gateway Protocol services",
 * gov.uk collection "HMRC(IR)mark: support for software developers"; the receipt's own <dsig:Transforms> say the
 * same):
 * 1. take the GovTalkMessage's <Body> element, with the namespace declarations it inherits from its ancestors;
 * 2. leave out the <IRmark> element of IRenvelope/IRheader (the text around it stays);
 * 3. canonicalise it with W3C Canonical XML 1.0 (http://www.w3.org/TR/2001/REC-xml-c14n-20010315);
 * 4. SHA-1 the canonical bytes; the IRmark is their base64 (sent in <IRmark Type="generic">), and HMRC's receipt
 *    prints the same 160 bits in base32.
 *
 * Canonical XML here is written over @xmldom/xmldom's DOM: the subset has no comments (our messages carry none, and
 * comments are not part of the canonical form without comments), no DTD and no entity references (refused by
 * parseXml), so what remains is the namespace, attribute-order and escaping rules of the W3C recommendation §2.
 */
import crypto from 'node:crypto';
import type { Element, Node } from '@xmldom/xmldom';
import { XmlError, childElements, parseXml } from './xml';

const XMLNS = 'http://www.w3.org/2000/xmlns/';
const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;
const PROCESSING_INSTRUCTION_NODE = 7;

/** C14N §2.3 attribute values: &, <, " and the three whitespace characters as character references. */
function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#x9;')
    .replace(/\n/g, '&#xA;')
    .replace(/\r/g, '&#xD;');
}

/** C14N §2.3 text: &, <, > and carriage return as references. */
function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
}

/** The namespace declarations an element makes itself: prefix ('' for the default) → URI. */
function declaredNamespaces(element: Element): Map<string, string> {
  const found = new Map<string, string>();
  const attrs = element.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (!a) continue;
    if (a.name === 'xmlns') found.set('', a.value);
    else if (a.name.startsWith('xmlns:')) found.set(a.name.slice(6), a.value);
  }
  return found;
}

/** Every namespace in scope at `element` (its ancestors' declarations overridden by nearer ones). */
export function inScopeNamespaces(element: Element): Map<string, string> {
  const chain: Element[] = [];
  for (let n: Node | null = element; n && n.nodeType === ELEMENT_NODE; n = n.parentNode)
    chain.unshift(n as Element);
  const scope = new Map<string, string>();
  for (const e of chain) for (const [prefix, uri] of declaredNamespaces(e)) scope.set(prefix, uri);
  return scope;
}

/**
 * Canonical XML 1.0 (without comments) of the subtree at `apex`, leaving out the elements `skip` says to. The
 * apex renders every namespace in scope (inherited ones included: the "document subset" rule of §2.4); a
 * descendant renders a declaration only where it differs from what its output parent rendered, and `xmlns=""`
 * only to undo a default namespace the parent rendered.
 */
export function canonicalize(apex: Element, skip: (element: Element) => boolean = () => false): string {
  let out = '';
  const renderElement = (element: Element, rendered: Map<string, string>, scope: Map<string, string>) => {
    const ownScope = new Map(scope);
    for (const [prefix, uri] of declaredNamespaces(element)) ownScope.set(prefix, uri);
    const nsToRender: Array<[string, string]> = [];
    for (const [prefix, uri] of ownScope) {
      if (prefix === 'xml') continue;
      if (prefix === '') {
        const parentDefault = rendered.get('') ?? '';
        if (uri !== parentDefault) nsToRender.push(['', uri]);
      } else if (rendered.get(prefix) !== uri) nsToRender.push([prefix, uri]);
    }
    // An empty default that the parent did not render needs no xmlns="" (§2.3).
    const namespaces = nsToRender
      .filter(([prefix, uri]) => !(prefix === '' && uri === '' && !rendered.has('')))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const attributes: Array<{ uri: string; local: string; qname: string; value: string }> = [];
    const attrs = element.attributes;
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs.item(i);
      if (!a || a.namespaceURI === XMLNS || a.name === 'xmlns' || a.name.startsWith('xmlns:')) continue;
      attributes.push({
        uri: a.namespaceURI ?? '',
        local: a.localName ?? a.name,
        qname: a.name,
        value: a.value,
      });
    }
    attributes.sort((a, b) =>
      a.uri !== b.uri ? (a.uri < b.uri ? -1 : 1) : a.local < b.local ? -1 : a.local > b.local ? 1 : 0,
    );
    out += `<${element.tagName}`;
    const childRendered = new Map(rendered);
    for (const [prefix, uri] of namespaces) {
      out +=
        prefix === '' ? ` xmlns="${escapeAttribute(uri)}"` : ` xmlns:${prefix}="${escapeAttribute(uri)}"`;
      childRendered.set(prefix, uri);
    }
    for (const a of attributes) out += ` ${a.qname}="${escapeAttribute(a.value)}"`;
    out += '>';
    for (let c = element.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === ELEMENT_NODE) {
        if (!skip(c as Element)) renderElement(c as Element, childRendered, ownScope);
      } else if (c.nodeType === TEXT_NODE || c.nodeType === CDATA_SECTION_NODE) {
        out += escapeText(c.nodeValue ?? '');
      } else if (c.nodeType === PROCESSING_INSTRUCTION_NODE) {
        const pi = c as unknown as { target: string; data: string };
        out += `<?${pi.target}${pi.data ? ` ${pi.data}` : ''}?>`;
      }
      // Comments are not part of the canonical form without comments.
    }
    out += `</${element.tagName}>`;
  };
  const parent =
    apex.parentNode && apex.parentNode.nodeType === ELEMENT_NODE ? (apex.parentNode as Element) : null;
  renderElement(apex, new Map(), parent ? inScopeNamespaces(parent) : new Map());
  return out;
}

/** RFC 4648 base32 (the alphabet HMRC prints the IRmark in on its receipts), without padding. */
export function toBase32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export interface IrMark {
  /** What <IRmark Type="generic"> carries. */
  base64: string;
  /** The same digest as HMRC's receipt prints it. */
  base32: string;
}

/** The IRmark of a GovTalkMessage (its IRmark element's content, empty or not, plays no part). */
export function computeIrMark(govTalkMessage: string): IrMark {
  const doc = parseXml(govTalkMessage);
  const body = childElements(doc.documentElement, 'Body')[0];
  if (!body) throw new XmlError('the GovTalkMessage has no Body');
  const isIrMark = (e: Element) =>
    e.localName === 'IRmark' &&
    e.parentNode?.nodeType === ELEMENT_NODE &&
    (e.parentNode as Element).localName === 'IRheader';
  const canonical = canonicalize(body, isIrMark);
  const digest = crypto.createHash('sha1').update(canonical, 'utf8').digest();
  return { base64: digest.toString('base64'), base32: toBase32(digest) };
}

/**
 * Writes the IRmark of a GovTalkMessage into its <IRmark Type="generic"> element (which must be there, empty or
 * holding a placeholder). The digest does not depend on that element, so writing it changes nothing it covers.
 */
export function withIrMark(govTalkMessage: string): { xml: string; irmark: IrMark } {
  const irmark = computeIrMark(govTalkMessage);
  const pattern = /<IRmark Type="generic"(?:\/>|>[^<]*<\/IRmark>)/;
  if (!pattern.test(govTalkMessage)) throw new XmlError('the message has no <IRmark Type="generic"> element');
  return { xml: govTalkMessage.replace(pattern, `<IRmark Type="generic">${irmark.base64}</IRmark>`), irmark };
}

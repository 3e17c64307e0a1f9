/**
 * XML for the Transaction Engine (issue 43): building our messages as text, and reading HMRC's answers as a DOM
 * with @xmldom/xmldom. HMRC's answers are untrusted input: a document type declaration (the way in for entity
 * expansion) is refused before parsing, and any parse error is one `XmlError`.
 */
import { DOMParser, type Document, type Element, type Node } from '@xmldom/xmldom';

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

/** Text as XML character data (element content and attribute values alike). */
export function escapeXml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A child of `el`: an element, text (escaped when the element is written) or nothing (left out). */
export type XmlChild = XmlElement | string | null | undefined | false;

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlChild[];
}

/** `el('Key', { Type: 'UTR' }, '1234567890')`: an element to write with `toXml`. */
export function el(name: string, attrs: Record<string, string> | XmlChild = {}, ...children: XmlChild[]) {
  if (
    attrs === null ||
    attrs === undefined ||
    attrs === false ||
    typeof attrs === 'string' ||
    'name' in attrs
  )
    return { name, attrs: {}, children: [attrs as XmlChild, ...children] } satisfies XmlElement;
  return { name, attrs: attrs as Record<string, string>, children } satisfies XmlElement;
}

/** Writes an element tree as indented XML (two spaces a level; text-only elements on one line). */
export function toXml(node: XmlElement, depth = 0): string {
  const pad = '  '.repeat(depth);
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
  const children = node.children.filter(
    (c): c is XmlElement | string => c !== null && c !== undefined && c !== false,
  );
  if (children.length === 0) return `${pad}<${node.name}${attrs}/>`;
  if (children.every((c) => typeof c === 'string'))
    return `${pad}<${node.name}${attrs}>${escapeXml(children.join(''))}</${node.name}>`;
  const inner = children
    .map((c) => (typeof c === 'string' ? `${pad}  ${escapeXml(c)}` : toXml(c, depth + 1)))
    .join('\n');
  return `${pad}<${node.name}${attrs}>\n${inner}\n${pad}</${node.name}>`;
}

/** Parses an XML document; refuses a DOCTYPE and reports the first error in one line. */
export function parseXml(text: string): Document {
  if (/<!DOCTYPE/i.test(text)) throw new XmlError('XML with a document type declaration is refused');
  // XML's end-of-line handling (XML 1.0 §2.11), done first so every reader sees the same characters.
  const normalised = text.replace(/\r\n?/g, '\n');
  let failure: string | null = null;
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning' && failure === null) failure = message.split('\n')[0] ?? message;
    },
  });
  let doc: Document;
  try {
    doc = parser.parseFromString(normalised, 'text/xml');
  } catch (error) {
    throw new XmlError(
      `not well-formed XML (${error instanceof Error ? error.message.split('\n')[0] : 'parse error'})`,
    );
  }
  if (failure !== null) throw new XmlError(`not well-formed XML (${failure})`);
  if (!doc.documentElement) throw new XmlError('not well-formed XML (no root element)');
  return doc;
}

const ELEMENT_NODE = 1;

/** Child elements of `node` (optionally only those with this local name). */
export function childElements(node: Node | null | undefined, localName?: string): Element[] {
  const found: Element[] = [];
  if (!node) return found;
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType !== ELEMENT_NODE) continue;
    const e = c as Element;
    if (localName === undefined || e.localName === localName) found.push(e);
  }
  return found;
}

/** The first child element at a path of local names (`child(doc, 'Header', 'MessageDetails')`). */
export function child(node: Node | null | undefined, ...path: string[]): Element | null {
  let at: Node | null | undefined = node;
  for (const name of path) {
    at = childElements(at, name)[0] ?? null;
    if (!at) return null;
  }
  return (at as Element | null) ?? null;
}

/** All descendant elements with this local name, in document order. */
export function descendants(node: Node | null | undefined, localName: string): Element[] {
  const found: Element[] = [];
  const walk = (n: Node) => {
    for (const e of childElements(n)) {
      if (e.localName === localName) found.push(e);
      walk(e);
    }
  };
  if (node) walk(node);
  return found;
}

/** An element's text, trimmed; '' when the element is missing. */
export function textOf(node: Node | null | undefined): string {
  return (node?.textContent ?? '').trim();
}

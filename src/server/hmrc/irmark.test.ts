import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize, computeIrMark, toBase32, withIrMark } from './irmark';
import { childElements, parseXml } from './xml';

/**
 * HMRC's worked example: the nil CIS300 of scheme 754/EZ00047 for the tax month to 5 January 2021, as HMRC's own
 * CIS service tests its IRmark (hmrc/construction-industry-scheme, test/utils/IrMarkProcessorTest.scala,
 * "UpdatedPayloadWithIrMark replaces single IRmark"): the message carries a stale IRmark and HMRC expects
 * tpwOaKfCHJDirqJn31ceHrX1XYc=. The file is that message byte for byte.
 */
const HMRC_EXAMPLE = fs.readFileSync(
  new URL('./test-data/hmrc-nil-return-754-EZ00047.xml', import.meta.url),
  'utf8',
);
const HMRC_EXAMPLE_IRMARK = 'tpwOaKfCHJDirqJn31ceHrX1XYc=';

describe('the IRmark', () => {
  it("matches HMRC's worked example", () => {
    expect(computeIrMark(HMRC_EXAMPLE).base64).toBe(HMRC_EXAMPLE_IRMARK);
  });

  it('does not depend on what the IRmark element holds, empty or not, nor on the envelope around the Body', () => {
    const emptied = HMRC_EXAMPLE.replace(
      /<IRmark Type="generic">[^<]*<\/IRmark>/,
      '<IRmark Type="generic"/>',
    );
    const otherHeader = HMRC_EXAMPLE.replace('C389CEF5BCC84EE2926CFDE96C89C767', 'ANOTHER').replace(
      '<SenderDetails/>',
      '<SenderDetails><IDAuthentication><SenderID>x</SenderID></IDAuthentication></SenderDetails>',
    );
    expect(computeIrMark(emptied).base64).toBe(HMRC_EXAMPLE_IRMARK);
    expect(computeIrMark(otherHeader).base64).toBe(HMRC_EXAMPLE_IRMARK);
  });

  it('changes with any change to the return, whitespace included', () => {
    expect(computeIrMark(HMRC_EXAMPLE.replace('2234567890', '2234567891')).base64).not.toBe(
      HMRC_EXAMPLE_IRMARK,
    );
    expect(computeIrMark(HMRC_EXAMPLE.replace('<NilReturn>', ' <NilReturn>')).base64).not.toBe(
      HMRC_EXAMPLE_IRMARK,
    );
  });

  it('reads Windows line endings as XML does (the same mark)', () => {
    expect(computeIrMark(HMRC_EXAMPLE.replace(/\n/g, '\r\n')).base64).toBe(HMRC_EXAMPLE_IRMARK);
  });

  it('is written into the IRmark element, in base64, with the base32 HMRC prints on its receipt', () => {
    const { xml, irmark } = withIrMark(HMRC_EXAMPLE);
    expect(irmark.base64).toBe(HMRC_EXAMPLE_IRMARK);
    expect(xml).toContain(`<IRmark Type="generic">${HMRC_EXAMPLE_IRMARK}</IRmark>`);
    expect(irmark.base32).toBe(toBase32(Buffer.from(HMRC_EXAMPLE_IRMARK, 'base64')));
    expect(irmark.base32).toMatch(/^[A-Z2-7]{32}$/);
  });

  it('RFC 4648 base32 (its test vectors)', () => {
    expect(toBase32(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(toBase32(Buffer.from('f'))).toBe('MY');
  });
});

describe('Canonical XML 1.0 of a subtree', () => {
  const canonicalOf = (xml: string, path: string[]) => {
    let at = parseXml(xml).documentElement;
    for (const name of path) at = childElements(at, name)[0] ?? at;
    if (!at) throw new Error('no element');
    return canonicalize(at);
  };

  it('renders the inherited namespaces on the apex, sorts attributes, expands empty elements and escapes (W3C c14n §3)', () => {
    const xml =
      '<a xmlns="urn:a" xmlns:p="urn:p"><b z="1" p:y="2" a="&quot;3&#9;" ><c/>x &amp; &lt; &gt; "q"</b></a>';
    expect(canonicalOf(xml, ['b'])).toBe(
      '<b xmlns="urn:a" xmlns:p="urn:p" a="&quot;3&#x9;" z="1" p:y="2"><c></c>x &amp; &lt; &gt; "q"</b>',
    );
  });

  it('renders a namespace declaration once, and xmlns="" only to undo a default', () => {
    const xml = '<a xmlns="urn:a"><b><c xmlns="urn:a"/><d xmlns=""><e/></d></b></a>';
    expect(canonicalOf(xml, ['b'])).toBe('<b xmlns="urn:a"><c></c><d xmlns=""><e></e></d></b>');
  });

  it('leaves comments out', () => {
    expect(canonicalOf('<a><b>1<!-- no -->2</b></a>', ['b'])).toBe('<b>12</b>');
  });
});

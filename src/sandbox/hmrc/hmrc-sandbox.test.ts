import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHmrcSandbox, type HmrcSandbox } from './hmrc-sandbox';

/**
 * The HMRC sandbox on its own: what software sends it over HTTP, and what it answers. The app's client is proven
 * against it in src/server/modules/hmrc-filing; here the sandbox is driven with hand-written messages so its
 * rules do not lean on the app's code.
 */
let hmrc: HmrcSandbox;
beforeEach(async () => {
  hmrc = await startHmrcSandbox({ pollIntervalSeconds: 0 });
});
afterEach(() => hmrc.close());

const post = async (path: string, body: string) => {
  const res = await fetch(`${hmrc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml' },
    body,
  });
  return res.text();
};
const envelope = (o: {
  qualifier: string;
  fn: string;
  correlationId?: string;
  body?: string;
  password?: string;
}) =>
  `<GovTalkMessage xmlns="http://www.govtalk.gov.uk/CM/envelope"><EnvelopeVersion>2.0</EnvelopeVersion><Header><MessageDetails><Class>IR-CIS-CIS300MR</Class><Qualifier>${o.qualifier}</Qualifier><Function>${o.fn}</Function><TransactionID>T-1</TransactionID><CorrelationID>${o.correlationId ?? ''}</CorrelationID><Transformation>XML</Transformation><GatewayTest>1</GatewayTest></MessageDetails><SenderDetails><IDAuthentication><SenderID>${hmrc.scheme.senderId}</SenderID><Authentication><Method>clear</Method><Role>principal</Role><Value>${o.password ?? hmrc.scheme.password}</Value></Authentication></IDAuthentication></SenderDetails></Header><GovTalkDetails><Keys><Key Type="TaxOfficeNumber">120</Key><Key Type="TaxOfficeReference">DB45678</Key></Keys><TargetDetails><Organisation>IR</Organisation></TargetDetails><ChannelRouting><Channel><URI>9999</URI><Product>Test</Product><Version>1</Version></Channel></ChannelRouting></GovTalkDetails><Body>${o.body ?? ''}</Body></GovTalkMessage>`;
const nilReturn = (irmark: string) =>
  `<IRenvelope xmlns="http://www.govtalk.gov.uk/taxation/CISreturn"><IRheader><Keys><Key Type="TaxOfficeNumber">120</Key><Key Type="TaxOfficeReference">DB45678</Key></Keys><PeriodEnd>2026-11-05</PeriodEnd><DefaultCurrency>GBP</DefaultCurrency><IRmark Type="generic">${irmark}</IRmark><Sender>Company</Sender></IRheader><CISreturn><Contractor><UTR>5012345678</UTR><AOref>120PD00456789</AOref></Contractor><NilReturn>yes</NilReturn><Declarations><InformationCorrect>yes</InformationCorrect></Declarations></CISreturn></IRenvelope>`;
/** The IRmark of that nil return, worked out by hand with the sandbox's own rule (a fixed point of it). */
async function irmarkFor(): Promise<string> {
  const { irmarkOf, parse } = await import('./xml');
  return irmarkOf(parse(envelope({ qualifier: 'request', fn: 'submit', body: nilReturn('') })))?.base64 ?? '';
}

describe('the HMRC sandbox', () => {
  it('acknowledges, answers a poll with the receipt, lists and deletes, and records what was filed', async () => {
    const ack = await post(
      '/submission',
      envelope({ qualifier: 'request', fn: 'submit', body: nilReturn(await irmarkFor()) }),
    );
    expect(ack).toContain('<Qualifier>acknowledgement</Qualifier>');
    const correlationId = /<CorrelationID>([0-9A-F]{32})<\/CorrelationID>/.exec(ack)?.[1] ?? '';
    expect(ack).toMatch(
      /<ResponseEndPoint PollInterval="0">http:\/\/127\.0\.0\.1:\d+\/poll<\/ResponseEndPoint>/,
    );
    const listed = await post('/submission', envelope({ qualifier: 'request', fn: 'list' }));
    expect(listed).toContain(
      `<CorrelationID>${correlationId}</CorrelationID><TransactionID>T-1</TransactionID>`,
    );
    const answer = await post('/poll', envelope({ qualifier: 'poll', fn: 'submit', correlationId }));
    expect(answer).toContain('<Qualifier>response</Qualifier>');
    expect(answer).toContain(`<dsig:DigestValue>${await irmarkFor()}</dsig:DigestValue>`);
    expect(hmrc.filed()).toHaveLength(1);
    expect(hmrc.filed()[0]).toMatchObject({
      kind: 'return',
      gatewayTest: true,
      return: { periodEnd: '2026-11-05', nil: true },
    });
    await post('/submission', envelope({ qualifier: 'request', fn: 'delete', correlationId }));
    expect(await post('/poll', envelope({ qualifier: 'poll', fn: 'submit', correlationId }))).toContain(
      'Unknown CorrelationId',
    );
  });

  it("refuses a wrong IRmark with HMRC's 2021, and wrong credentials with 1046", async () => {
    const ack = await post(
      '/submission',
      envelope({ qualifier: 'request', fn: 'submit', body: nilReturn('AAAAAAAAAAAAAAAAAAAAAAAAAAA=') }),
    );
    const correlationId = /<CorrelationID>([0-9A-F]{32})<\/CorrelationID>/.exec(ack)?.[1] ?? '';
    const answer = await post('/poll', envelope({ qualifier: 'poll', fn: 'submit', correlationId }));
    expect(answer).toContain('<Number>2021</Number>');
    expect(hmrc.filed()).toHaveLength(0);
    const refused = await post(
      '/submission',
      envelope({ qualifier: 'request', fn: 'submit', password: 'wrong', body: nilReturn(await irmarkFor()) }),
    );
    expect(refused).toContain('<Number>1046</Number>');
  });

  it('answers slowly when told: acknowledged again until the poll it was told', async () => {
    hmrc.setFaults({ pollsBeforeAnswer: 3 });
    const ack = await post(
      '/submission',
      envelope({ qualifier: 'request', fn: 'submit', body: nilReturn(await irmarkFor()) }),
    );
    const correlationId = /<CorrelationID>([0-9A-F]{32})<\/CorrelationID>/.exec(ack)?.[1] ?? '';
    const poll = () => post('/poll', envelope({ qualifier: 'poll', fn: 'submit', correlationId }));
    expect(await poll()).toContain('acknowledgement');
    expect(await poll()).toContain('acknowledgement');
    expect(await poll()).toContain('<Qualifier>response</Qualifier>');
  });

  it("answers with each of HMRC's error kinds once when told", async () => {
    for (const [kind, number] of [
      ['business', '5005'],
      ['irmark', '2021'],
      ['fatal', '1001'],
      ['recoverable-1000', '1000'],
      ['recoverable-2005', '2005'],
      ['recoverable-3000', '3000'],
    ] as const) {
      hmrc.setFaults({ nextAnswer: kind });
      const ack = await post(
        '/submission',
        envelope({ qualifier: 'request', fn: 'submit', body: nilReturn(await irmarkFor()) }),
      );
      const correlationId = /<CorrelationID>([0-9A-F]{32})<\/CorrelationID>/.exec(ack)?.[1] ?? '';
      expect(
        await post('/poll', envelope({ qualifier: 'poll', fn: 'submit', correlationId })),
        kind,
      ).toContain(`<Number>${number}</Number>`);
    }
    expect(hmrc.filed()).toHaveLength(0);
  });

  it('drops an acknowledgement when told, though the message is on the queue', async () => {
    hmrc.setFaults({ dropNext: 'ack' });
    await expect(
      post(
        '/submission',
        envelope({ qualifier: 'request', fn: 'submit', body: nilReturn(await irmarkFor()) }),
      ),
    ).rejects.toThrow();
    expect(await post('/submission', envelope({ qualifier: 'request', fn: 'list' }))).toContain(
      '<TransactionID>T-1</TransactionID>',
    );
  });
});

/**
 * The answers HMRC's Transaction Engine gives, in the shapes of HMRC's own CIS stub
 * (hmrc/construction-industry-scheme-external-stub, conf/resources): the acknowledgement, a success with and
 * without the IRmark receipt, a departmental (business) error with its ErrorResponse, a fatal error, the
 * recoverable errors, the delete answer and a data request's StatusReport.
 */
import { esc } from './xml';

export interface AnswerError {
  raisedBy: string;
  number: string;
  type: string;
  text: string;
  location?: string;
}

function header(o: {
  messageClass: string;
  qualifier: string;
  fn: string;
  correlationId: string;
  transactionId?: string;
  endPoint?: { url: string; interval: number } | null;
  timestamp: string;
}): string {
  const ep = o.endPoint
    ? `<ResponseEndPoint PollInterval="${o.endPoint.interval}">${esc(o.endPoint.url)}</ResponseEndPoint>`
    : '<ResponseEndPoint/>';
  return `<Header>
    <MessageDetails>
      <Class>${esc(o.messageClass)}</Class>
      <Qualifier>${o.qualifier}</Qualifier>
      <Function>${o.fn}</Function>
      <TransactionID>${esc(o.transactionId ?? '')}</TransactionID>
      <CorrelationID>${esc(o.correlationId)}</CorrelationID>
      ${ep}
      <Transformation>XML</Transformation>
      <GatewayTimestamp>${o.timestamp}</GatewayTimestamp>
    </MessageDetails>
  </Header>`;
}

const wrap = (inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<GovTalkMessage xmlns="http://www.govtalk.gov.uk/CM/envelope">\n  <EnvelopeVersion>2.0</EnvelopeVersion>\n  ${inner}\n</GovTalkMessage>\n`;

const errorXml = (e: AnswerError) =>
  `<Error><RaisedBy>${esc(e.raisedBy)}</RaisedBy><Number>${esc(e.number)}</Number><Type>${esc(e.type)}</Type><Text>${esc(e.text)}</Text><Location>${esc(e.location ?? '')}</Location></Error>`;

export interface AnswerContext {
  messageClass: string;
  correlationId: string;
  transactionId: string;
  timestamp: string;
}

export function acknowledgement(c: AnswerContext, pollUrl: string, interval: number): string {
  return wrap(`${header({ ...c, qualifier: 'acknowledgement', fn: 'submit', endPoint: { url: pollUrl, interval } })}
  <GovTalkDetails><Keys/></GovTalkDetails>
  <Body/>`);
}

/** An error: GovTalkErrors (the Gateway's or the department's 3001) and, for a 3001, the department's reasons. */
export function errorAnswer(c: AnswerContext, errors: AnswerError[], bodyErrors: AnswerError[] = []): string {
  const body =
    bodyErrors.length > 0
      ? `<Body><ErrorResponse SchemaVersion="2.0"><Application><MessageCount>${bodyErrors.length}</MessageCount></Application>${bodyErrors.map(errorXml).join('')}</ErrorResponse></Body>`
      : '<Body/>';
  return wrap(`${header({ ...c, qualifier: 'error', fn: 'submit' })}
  <GovTalkDetails><Keys/><GovTalkErrors>${errors.map(errorXml).join('')}</GovTalkErrors></GovTalkDetails>
  ${body}`);
}

/** Success: the IRmark receipt (or none), HMRC's message, the time accepted, and a verification's results. */
export function success(
  c: AnswerContext,
  o: {
    irmark: { base64: string; base32: string } | null;
    documentRef: string;
    at: Date;
    message: { code: string; text: string };
    responseData?: string;
  },
): string {
  const when = o.at;
  const time = `${String(when.getUTCHours()).padStart(2, '0')}.${String(when.getUTCMinutes()).padStart(2, '0')}`;
  const day = `${String(when.getUTCDate()).padStart(2, '0')}/${String(when.getUTCMonth() + 1).padStart(2, '0')}/${when.getUTCFullYear()}`;
  const receipt = `<IRmarkReceipt>
        <dsig:Signature xmlns:dsig="http://www.w3.org/2000/09/xmldsig#">
          <dsig:SignedInfo>
            <dsig:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>
            <dsig:SignatureMethod Algorithm="http://www.w3.org/2000/09/xmldsig#rsa-sha1"/>
            <dsig:Reference>
              <dsig:Transforms>
                <dsig:Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments"/>
              </dsig:Transforms>
              <dsig:DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/>
              ${o.irmark ? `<dsig:DigestValue>${o.irmark.base64}</dsig:DigestValue>` : '<dsig:DigestValue/>'}
            </dsig:Reference>
          </dsig:SignedInfo>
          <dsig:SignatureValue>sandbox</dsig:SignatureValue>
        </dsig:Signature>
        <Message code="1">HMRC has received the ${esc(c.messageClass)} document ref: ${esc(o.documentRef)} at ${time} on ${day}. The associated IRmark was: ${o.irmark?.base32 ?? ''}. We advise you to keep this receipt in both electronic and hardcopy versions for your records. You may wish to use them to identify your submission in the future.</Message>
      </IRmarkReceipt>`;
  return wrap(`${header({ ...c, qualifier: 'response', fn: 'submit' })}
  <GovTalkDetails><Keys/></GovTalkDetails>
  <Body>
    <SuccessResponse xmlns="http://www.inlandrevenue.gov.uk/SuccessResponse">
      ${receipt}
      <Message code="${o.message.code}">${esc(o.message.text)}</Message>
      <AcceptedTime>${o.at.toISOString().slice(0, 23)}</AcceptedTime>
      ${o.responseData ? `<ResponseData>${o.responseData}</ResponseData>` : ''}
    </SuccessResponse>
  </Body>`);
}

export function deleted(c: AnswerContext): string {
  return wrap(`${header({ ...c, qualifier: 'response', fn: 'delete' })}
  <GovTalkDetails><Keys/></GovTalkDetails>
  <Body/>`);
}

export function statusReport(
  c: AnswerContext,
  senderId: string,
  records: Array<{ correlationId: string; transactionId: string; status: string; at: Date }>,
): string {
  const stamp = (d: Date) =>
    `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()} ${d.toISOString().slice(11, 19)}`;
  return wrap(`${header({ ...c, qualifier: 'response', fn: 'list' })}
  <GovTalkDetails><Keys/></GovTalkDetails>
  <Body>
    <StatusReport>
      <SenderID>${esc(senderId)}</SenderID>
      ${records
        .map(
          (r) =>
            `<StatusRecord><TimeStamp>${stamp(r.at)}</TimeStamp><CorrelationID>${esc(r.correlationId)}</CorrelationID><TransactionID>${esc(r.transactionId)}</TransactionID><Status>${r.status}</Status></StatusRecord>`,
        )
        .join('\n      ')}
    </StatusReport>
  </Body>`);
}

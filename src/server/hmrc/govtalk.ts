/**
 * The GovTalk envelope of HMRC's Transaction Engine (issue 43; HMRC, "Transaction Engine: Document Submission
 * Protocol", v2.0): what Ledgerlink sends (submit, poll, delete, list) and what it reads back.
 *
 * The exchange, as the protocol and HMRC's own CIS service (hmrc/construction-industry-scheme, ChrisConnector,
 * ChrisPollXmlMapper) run it:
 * - `request`/`submit` with the document: the Transaction Engine answers `acknowledgement` with a CorrelationID
 *   and a ResponseEndPoint with a PollInterval in seconds, or `error` (authentication, a malformed envelope);
 * - `poll`/`submit` with the CorrelationID at the ResponseEndPoint, no sooner than the interval: `acknowledgement`
 *   again while HMRC works, then `response` (success: a SuccessResponse with the IRmark receipt) or `error`
 *   (GovTalkErrors, with the department's reasons in Body/ErrorResponse);
 * - `request`/`delete` with the CorrelationID once the answer is kept, which takes it off HMRC's queue;
 * - `request`/`list` (a data request): the sender's messages still on the queue, each a StatusRecord with the
 *   CorrelationID, the TransactionID the sender gave it and its status. Ledgerlink sets its own TransactionID on
 *   every submission and finds a submission whose acknowledgement was lost this way (decision 043).
 */
import type { Document, Element } from '@xmldom/xmldom';
import {
  child,
  childElements,
  descendants,
  el,
  parseXml,
  textOf,
  toXml,
  type XmlChild,
  type XmlElement,
} from './xml';

export const GOVTALK_NAMESPACE = 'http://www.govtalk.gov.uk/CM/envelope';

/** The message classes Ledgerlink sends (HMRC's CIS online channel). */
export type CisMessageClass = 'IR-CIS-VERIFY' | 'IR-CIS-CIS300MR';

/** Who sends: the software (vendor ID, product) and the contractor's Government Gateway credentials. */
export interface GovTalkSender {
  /** The Government Gateway user ID. */
  senderId: string;
  password: string;
  /** HMRC's 4-digit vendor ID of the software (ChannelRouting/URI). */
  vendorId: string;
  product: string;
  version: string;
  /** Test submissions: `<GatewayTest>1</GatewayTest>`, validated and answered but never processed by HMRC. */
  gatewayTest: boolean;
}

/** The contractor's scheme keys: the employer reference's tax office number and reference ("123/AB45678"). */
export interface SchemeKeys {
  taxOfficeNumber: string;
  taxOfficeReference: string;
}

function keysElement(keys: SchemeKeys | null) {
  return keys
    ? el(
        'Keys',
        el('Key', { Type: 'TaxOfficeNumber' }, keys.taxOfficeNumber),
        el('Key', { Type: 'TaxOfficeReference' }, keys.taxOfficeReference),
      )
    : el('Keys');
}

function senderDetails(sender: GovTalkSender | null) {
  if (!sender) return el('SenderDetails');
  return el(
    'SenderDetails',
    el(
      'IDAuthentication',
      el('SenderID', sender.senderId),
      el('Authentication', el('Method', 'clear'), el('Role', 'principal'), el('Value', sender.password)),
    ),
  );
}

/** One GovTalkMessage. `body` is the Body's content (an IRenvelope for a submission; nothing otherwise). */
export function buildGovTalkMessage(options: {
  messageClass: CisMessageClass;
  qualifier: 'request' | 'poll';
  function: 'submit' | 'delete' | 'list';
  transactionId?: string | undefined;
  correlationId?: string | undefined;
  sender: GovTalkSender | null;
  gatewayTest: boolean;
  keys: SchemeKeys | null;
  /** ChannelRouting and TargetDetails: on a submission and a data request. */
  routing?: { vendorId: string; product: string; version: string; timestamp: string } | undefined;
  body?: XmlElement | undefined;
}): string {
  const details: XmlChild[] = [
    el('Class', options.messageClass),
    el('Qualifier', options.qualifier),
    el('Function', options.function),
    options.transactionId ? el('TransactionID', options.transactionId) : null,
    el('CorrelationID', options.correlationId ?? null),
    el('Transformation', 'XML'),
    el('GatewayTest', options.gatewayTest ? '1' : '0'),
  ];
  const message = el(
    'GovTalkMessage',
    { xmlns: GOVTALK_NAMESPACE },
    el('EnvelopeVersion', '2.0'),
    el('Header', el('MessageDetails', ...details), senderDetails(options.sender)),
    el(
      'GovTalkDetails',
      keysElement(options.keys),
      options.routing ? el('TargetDetails', el('Organisation', 'IR')) : null,
      options.routing
        ? el(
            'ChannelRouting',
            el(
              'Channel',
              el('URI', options.routing.vendorId),
              el('Product', options.routing.product),
              el('Version', options.routing.version),
            ),
            el('Timestamp', options.routing.timestamp),
          )
        : null,
    ),
    options.body ? el('Body', options.body) : el('Body'),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${toXml(message)}\n`;
}

/** One error HMRC reported: in GovTalkDetails/GovTalkErrors or the department's Body/ErrorResponse. */
export interface GovTalkError {
  raisedBy: string;
  number: string;
  type: string;
  text: string;
  location: string;
}

/** What one answer of the Transaction Engine said. */
export interface GovTalkAnswer {
  messageClass: string;
  qualifier: 'acknowledgement' | 'response' | 'error' | string;
  function: string;
  correlationId: string;
  transactionId: string;
  responseEndPoint: string;
  /** Seconds; null when the answer gives none. */
  pollInterval: number | null;
  gatewayTimestamp: string;
  /** GovTalkDetails/GovTalkErrors/Error. */
  errors: GovTalkError[];
  /** Body/ErrorResponse/Error (the department's reasons behind a 3001). */
  bodyErrors: GovTalkError[];
  /** The parsed document, for what each message class reads of its Body. */
  document: Document;
  body: Element | null;
}

function readError(e: Element): GovTalkError {
  return {
    raisedBy: textOf(child(e, 'RaisedBy')),
    number: textOf(child(e, 'Number')),
    type: textOf(child(e, 'Type')),
    text: textOf(child(e, 'Text')).replace(/\s+/g, ' '),
    location: textOf(child(e, 'Location')),
  };
}

/** Reads a GovTalkMessage answer; throws XmlError when it is not one. */
export function parseGovTalkAnswer(xml: string): GovTalkAnswer {
  const doc = parseXml(xml);
  const root = doc.documentElement;
  if (!root || root.localName !== 'GovTalkMessage') throw new Error('the answer is not a GovTalkMessage');
  const details = child(root, 'Header', 'MessageDetails');
  const endPoint = child(details, 'ResponseEndPoint');
  const interval = endPoint?.getAttribute('PollInterval') ?? '';
  const body = child(root, 'Body');
  const errorResponse = child(body, 'ErrorResponse');
  return {
    messageClass: textOf(child(details, 'Class')),
    qualifier: textOf(child(details, 'Qualifier')),
    function: textOf(child(details, 'Function')),
    correlationId: textOf(child(details, 'CorrelationID')),
    transactionId: textOf(child(details, 'TransactionID')),
    responseEndPoint: textOf(endPoint),
    pollInterval: /^\d{1,6}$/.test(interval.trim()) ? Number(interval.trim()) : null,
    gatewayTimestamp: textOf(child(details, 'GatewayTimestamp')),
    errors: childElements(child(root, 'GovTalkDetails', 'GovTalkErrors'), 'Error').map(readError),
    bodyErrors: childElements(errorResponse, 'Error').map(readError),
    document: doc,
    body,
  };
}

/** The receipt of an accepted submission (Body/SuccessResponse). */
export interface SuccessReceipt {
  /** The IRmark HMRC computed (the receipt's DigestValue, base64); null when the answer carries none. */
  irmark: string | null;
  /** HMRC's receipt text ("HMRC has received the IR-CIS-CIS300MR document ref: … The associated IRmark was: …"). */
  receiptMessage: string;
  /** HMRC's other messages (e.g. 9004 "… has been processed and passed full validation"). */
  messages: string[];
  /** When HMRC accepted it (AcceptedTime, UK local time as HMRC writes it). */
  acceptedTime: string;
}

export function readSuccessReceipt(answer: GovTalkAnswer): SuccessReceipt | null {
  const success = child(answer.body, 'SuccessResponse');
  if (!success) return null;
  const receipt = child(success, 'IRmarkReceipt');
  const digest = descendants(receipt, 'DigestValue')[0];
  return {
    irmark: textOf(digest) || null,
    receiptMessage: textOf(child(receipt, 'Message')),
    messages: childElements(success, 'Message').map((m) => textOf(m)),
    acceptedTime: textOf(child(success, 'AcceptedTime')),
  };
}

/** A StatusRecord of a data request's StatusReport. */
export interface StatusRecord {
  correlationId: string;
  transactionId: string;
  status: string;
  timestamp: string;
}

export function readStatusReport(answer: GovTalkAnswer): StatusRecord[] {
  return descendants(child(answer.body, 'StatusReport'), 'StatusRecord').map((r) => ({
    correlationId: textOf(child(r, 'CorrelationID')),
    transactionId: textOf(child(r, 'TransactionID')),
    status: textOf(child(r, 'Status')),
    timestamp: textOf(child(r, 'TimeStamp')),
  }));
}

/**
 * The Transaction Engine client (issue 43, decision 043): HTTP to HMRC's submission and poll endpoints, one
 * GovTalk message per call. It knows the protocol and nothing of Ledgerlink's tables: the filing module records a
 * submission before it calls `submit` and keeps every answer it gets.
 */
import {
  buildGovTalkMessage,
  parseGovTalkAnswer,
  readStatusReport,
  type CisMessageClass,
  type GovTalkAnswer,
  type GovTalkSender,
  type SchemeKeys,
  type StatusRecord,
} from './govtalk';
import { withIrMark, type IrMark } from './irmark';
import { toXml, type XmlElement } from './xml';

/** HMRC's endpoints (HMRC, "Transaction Engine: Document Submission Protocol"; docs/hmrc.md). */
export const HMRC_ENDPOINTS = {
  live: 'https://transaction-engine.tax.service.gov.uk/submission',
  test: 'https://test-transaction-engine.tax.service.gov.uk/submission',
} as const;

/** The software as HMRC knows it (ChannelRouting/Product and Version). */
export const HMRC_PRODUCT = { product: 'Ledgerlink', version: '0.1.0' } as const;

/** What the recorded copy of a message holds where the password was: a message is never stored with it. */
export const PASSWORD_PLACEHOLDER = '[redacted]';

/** The call reached no answer: refused, reset, timed out, or an HTTP status that is not an answer. */
export class TransportError extends Error {
  constructor(
    message: string,
    /** Whether HMRC may have received the message (a timeout or a reset after sending): never resend blindly. */
    readonly mayHaveArrived: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface TransactionEngineOptions {
  /** The submission endpoint; polls go to the ResponseEndPoint HMRC names, if it is on the same host. */
  submissionUrl: string;
  /** Per call; default 30 s. */
  timeoutMs?: number;
}

/** A message ready to send: the text with the password, the copy to keep, and the IRmark it carries. */
export interface PreparedMessage {
  xml: string;
  recorded: string;
  irmark: IrMark;
}

/** Writes the password into a recorded message, for the one moment it is sent. */
export function withPassword(recorded: string, password: string): string {
  const escaped = password.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return recorded.replace(`<Value>${PASSWORD_PLACEHOLDER}</Value>`, () => `<Value>${escaped}</Value>`);
}

/** Builds a submission (`request`/`submit`) around an IRenvelope and marks it with its IRmark. */
export function prepareSubmission(options: {
  messageClass: CisMessageClass;
  transactionId: string;
  sender: GovTalkSender;
  keys: SchemeKeys;
  envelope: XmlElement;
  timestamp: string;
}): PreparedMessage {
  const { sender } = options;
  const text = buildGovTalkMessage({
    messageClass: options.messageClass,
    qualifier: 'request',
    function: 'submit',
    transactionId: options.transactionId,
    sender: { ...sender, password: PASSWORD_PLACEHOLDER },
    gatewayTest: sender.gatewayTest,
    keys: options.keys,
    routing: {
      vendorId: sender.vendorId,
      product: sender.product,
      version: sender.version,
      timestamp: options.timestamp,
    },
    body: options.envelope,
  });
  const { xml: recorded, irmark } = withIrMark(text);
  return { recorded, irmark, xml: withPassword(recorded, sender.password) };
}

/** The IRenvelope as text (for a test or a look at what was filed). */
export function envelopeText(envelope: XmlElement): string {
  return toXml(envelope);
}

export function createTransactionEngine(options: TransactionEngineOptions) {
  const submissionUrl = new URL(options.submissionUrl);
  const timeoutMs = options.timeoutMs ?? 30_000;

  /** HMRC's ResponseEndPoint when it is on the configured host (anything else is not followed). */
  function endpointFor(responseEndPoint: string | null | undefined, fallbackPath: string): URL {
    if (responseEndPoint) {
      try {
        const url = new URL(responseEndPoint, submissionUrl);
        if (url.host === submissionUrl.host && url.protocol === submissionUrl.protocol) return url;
      } catch {
        // not a URL: the fallback below
      }
    }
    return new URL(fallbackPath, submissionUrl);
  }

  async function post(url: URL, xml: string): Promise<GovTalkAnswer> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=UTF-8', accept: 'text/xml, application/xml' },
        body: xml,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // A refused connection never reached HMRC; a timeout or a reset may have after the message left.
      const refused = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(
        String((error as { cause?: unknown }).cause ?? reason),
      );
      throw new TransportError(`HMRC's Transaction Engine could not be reached (${reason})`, !refused);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok && !text.includes('GovTalkMessage'))
      throw new TransportError(
        `HMRC's Transaction Engine answered HTTP ${res.status}`,
        res.status >= 500,
        res.status,
      );
    try {
      return parseGovTalkAnswer(text);
    } catch (error) {
      throw new TransportError(
        `HMRC's Transaction Engine answered something that is not a GovTalk message (${error instanceof Error ? error.message : 'unreadable'})`,
        true,
        res.status,
      );
    }
  }

  return {
    submissionUrl: submissionUrl.toString(),

    /** Sends a prepared submission; answers HMRC's acknowledgement (or its error). */
    submit(message: PreparedMessage): Promise<GovTalkAnswer> {
      return post(submissionUrl, message.xml);
    },

    /** Asks for the answer to a submission HMRC acknowledged. */
    poll(options: {
      messageClass: CisMessageClass;
      correlationId: string;
      responseEndPoint: string | null;
      gatewayTest: boolean;
    }): Promise<GovTalkAnswer> {
      const xml = buildGovTalkMessage({
        messageClass: options.messageClass,
        qualifier: 'poll',
        function: 'submit',
        correlationId: options.correlationId,
        sender: null,
        gatewayTest: options.gatewayTest,
        keys: null,
      });
      return post(endpointFor(options.responseEndPoint, 'poll'), xml);
    },

    /** Takes an answered submission off HMRC's queue. */
    delete(options: {
      messageClass: CisMessageClass;
      correlationId: string;
      responseEndPoint: string | null;
      gatewayTest: boolean;
    }): Promise<GovTalkAnswer> {
      const xml = buildGovTalkMessage({
        messageClass: options.messageClass,
        qualifier: 'request',
        function: 'delete',
        correlationId: options.correlationId,
        sender: null,
        gatewayTest: options.gatewayTest,
        keys: null,
      });
      return post(endpointFor(options.responseEndPoint, 'submission'), xml);
    },

    /** The sender's messages still on HMRC's queue (a data request). */
    async list(options: {
      messageClass: CisMessageClass;
      sender: GovTalkSender;
      keys: SchemeKeys;
      timestamp: string;
    }): Promise<{ answer: GovTalkAnswer; records: StatusRecord[] }> {
      const { sender } = options;
      const xml = buildGovTalkMessage({
        messageClass: options.messageClass,
        qualifier: 'request',
        function: 'list',
        sender,
        gatewayTest: sender.gatewayTest,
        keys: options.keys,
        routing: {
          vendorId: sender.vendorId,
          product: sender.product,
          version: sender.version,
          timestamp: options.timestamp,
        },
      });
      const answer = await post(submissionUrl, xml);
      return { answer, records: answer.qualifier === 'response' ? readStatusReport(answer) : [] };
    },
  };
}
export type TransactionEngine = ReturnType<typeof createTransactionEngine>;

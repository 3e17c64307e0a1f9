/**
 * The built-in HMRC (issue 43): HMRC's Transaction Engine for CIS on a loopback port, beside the Xero sandbox. It
 * speaks the same protocol as HMRC (submit → acknowledgement with a CorrelationID and a poll interval → poll →
 * answer → delete; a data request lists what is on the queue), checks each submission's credentials, IRmark and
 * message rules and answers with HMRC's errors when they fail, verifies subcontractors against its register,
 * records what was filed, and can be told to answer slowly, to answer with each of HMRC's error kinds or to drop
 * an answer (control endpoints under /__hmrc/, loopback only). Started by the server in demo mode and by tests;
 * `npm run sandbox:hmrc` runs it alone (main.ts). README.md beside this file lists the addresses.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isLoopback } from '../control';
import {
  acknowledgement,
  deleted,
  errorAnswer,
  statusReport,
  success,
  type AnswerContext,
  type AnswerError,
} from './answers';
import {
  DEMO_SCHEME,
  sameName,
  seedRegister,
  type RegisteredSubcontractor,
  type SchemeRecord,
} from './register';
import { checkHeader, checkReturn, checkVerification, type CheckedReturn } from './rules';
import { at, esc, irmarkOf, kids, parse, text } from './xml';

export type { RegisteredSubcontractor, SchemeRecord } from './register';
export { DEMO_SCHEME } from './register';

/** The error kinds a test can ask for on the next submission (HMRC's, as its CIS stub answers them). */
export const FORCED_ANSWERS = [
  'fatal',
  'business',
  'irmark',
  'auth',
  'recoverable-1000',
  'recoverable-2005',
  'recoverable-3000',
  'no-receipt',
] as const;
export type ForcedAnswer = (typeof FORCED_ANSWERS)[number];

export const hmrcFaultsSchema = z
  .object({
    /** The submit call answers this much later (the message is received and queued at once). */
    ackDelayMs: z.number().int().min(0).max(600_000).optional(),
    /** The answer is ready this long after the submission; polls before then are acknowledged again. */
    answerDelayMs: z.number().int().min(0).max(3_600_000).optional(),
    /** The answer is given only at this poll (1 = the first); polls before it are acknowledged again. */
    pollsBeforeAnswer: z.number().int().min(0).max(1000).optional(),
    /** The next submission is answered with this error kind (once). */
    nextAnswer: z.enum(FORCED_ANSWERS).optional(),
    /** The next acknowledgement (or the next final answer to a poll) is dropped: the connection is closed. */
    dropNext: z.enum(['ack', 'answer']).optional(),
    /** The PollInterval given, in seconds (default: the sandbox's, 1). */
    pollInterval: z.number().int().min(0).max(3600).optional(),
  })
  .strict();
export type HmrcFaults = z.infer<typeof hmrcFaultsSchema>;

interface QueuedMessage {
  correlationId: string;
  transactionId: string;
  messageClass: string;
  senderId: string;
  receivedAt: string;
  gatewayTest: boolean;
  answer: string;
  outcome: 'accepted' | 'rejected';
  readyAtMs: number;
  pollsLeft: number;
  deleted: boolean;
}

export interface FiledRecord {
  correlationId: string;
  kind: 'return' | 'verification';
  scheme: string;
  receivedAt: string;
  gatewayTest: boolean;
  irmark: string;
  /** A return: its period end, nil, inactive and lines as HMRC holds them. */
  return?: CheckedReturn;
  /** A verification: each subcontractor's answer. */
  verifications?: Array<{
    name: string;
    utr: string;
    matched: boolean;
    treatment: string;
    verificationNumber: string;
  }>;
}

interface HmrcState {
  schemes: SchemeRecord[];
  register: RegisteredSubcontractor[];
  messages: QueuedMessage[];
  filed: FiledRecord[];
  nextVerification: number;
}

export interface HmrcSandboxOptions {
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** State kept under this folder (state.json); null = in memory. */
  dataDir?: string | null;
  /** The PollInterval HMRC gives, in seconds; default 1. */
  pollIntervalSeconds?: number;
  logger?: boolean;
}

export interface HmrcSandbox {
  url: string;
  /** Where software sends its submissions (HMRC_ENDPOINT). */
  submissionUrl: string;
  app: FastifyInstance;
  scheme: SchemeRecord;
  register(): RegisteredSubcontractor[];
  filed(): FiledRecord[];
  messages(): Array<Omit<QueuedMessage, 'answer'>>;
  setFaults(faults: HmrcFaults): void;
  clearFaults(): void;
  /** Every answer held back (answerDelayMs, pollsBeforeAnswer) is ready at the next poll. */
  release(): void;
  reset(): void;
  close(): Promise<void>;
}

function freshState(): HmrcState {
  return {
    schemes: [{ ...DEMO_SCHEME }],
    register: seedRegister(),
    messages: [],
    filed: [],
    nextVerification: 4_000_000_001,
  };
}

const AUTH_FAILED: AnswerError = {
  raisedBy: 'Gateway',
  number: '1046',
  type: 'fatal',
  text: 'Authentication Failure. The supplied user credentials failed validation for the requested service.',
};
const MALFORMED = (why: string): AnswerError => ({
  raisedBy: 'Gateway',
  number: '1001',
  type: 'fatal',
  text: `The submitted XML document either failed to validate against the GovTalk schema for this class of document or its body was badly formed. ${why}`,
});

const FORCED: Record<
  Exclude<ForcedAnswer, 'no-receipt' | 'auth'>,
  { errors: AnswerError[]; body?: AnswerError[] }
> = {
  fatal: { errors: [MALFORMED('(sandbox: forced)')] },
  business: {
    errors: [
      {
        raisedBy: 'Department',
        number: '3001',
        type: 'business',
        text: 'The submission of this document has failed due to departmental specific business logic in the Body tag.',
      },
    ],
    body: [
      {
        raisedBy: 'ChRIS',
        number: '5005',
        type: 'business',
        text: 'Keys in the GovTalkDetails do not match those in the IRheader.',
        location: 'IRheader/Keys',
      },
    ],
  },
  irmark: {
    errors: [
      {
        raisedBy: 'ChRIS',
        number: '3001',
        type: 'business',
        text: 'Your submission failed due to business validation errors. Please see below for details.',
      },
    ],
    body: [
      {
        raisedBy: 'ChRIS',
        number: '2021',
        type: 'business',
        text: 'The supplied IRmark is incorrect.',
        location: 'IRmark',
      },
    ],
  },
  'recoverable-1000': {
    errors: [
      {
        raisedBy: 'Gateway',
        number: '1000',
        type: 'fatal',
        text: 'System failure. The submission of this document has failed due to an internal system error.',
      },
    ],
  },
  'recoverable-2005': {
    errors: [
      {
        raisedBy: 'Gateway',
        number: '2005',
        type: 'fatal',
        text: 'The Transaction Engine has not received an acknowledgement of your submission from the back-end system within the permitted timescale. Either resubmit or contact the appropriate organisation directly to determine if your submission has been accepted.',
      },
    ],
  },
  'recoverable-3000': {
    errors: [
      {
        raisedBy: 'Gateway',
        number: '3000',
        type: 'fatal',
        text: 'The processing of your document submission failed. Please re-submit',
      },
    ],
  },
};

export async function startHmrcSandbox(options: HmrcSandboxOptions = {}): Promise<HmrcSandbox> {
  const stateFile = options.dataDir ? path.join(options.dataDir, 'state.json') : null;
  let state: HmrcState = freshState();
  if (stateFile && fs.existsSync(stateFile)) {
    try {
      state = { ...freshState(), ...(JSON.parse(fs.readFileSync(stateFile, 'utf8')) as Partial<HmrcState>) };
    } catch {
      state = freshState();
    }
  }
  let faults: HmrcFaults = {};
  const defaultInterval = options.pollIntervalSeconds ?? 1;
  const save = () => {
    if (!stateFile) return;
    fs.mkdirSync(path.dirname(stateFile), { recursive: true });
    fs.writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
    fs.renameSync(`${stateFile}.tmp`, stateFile);
  };

  const app = Fastify({ logger: options.logger ?? false, bodyLimit: 5 * 1024 * 1024 });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  let baseUrl = '';

  const now = () => new Date();
  const gatewayTimestamp = () => now().toISOString().slice(0, 23);
  const xml = (reply: FastifyReply, body: string) =>
    reply.header('content-type', 'text/xml; charset=UTF-8').send(body);
  /** Closes the connection without an answer: the message stands, its answer never arrives. */
  const drop = (request: FastifyRequest, reply: FastifyReply) => {
    void reply.hijack();
    request.raw.socket.destroy();
  };

  function checkSubmission(
    root: ReturnType<typeof parse>,
    messageClass: string,
    scheme: SchemeRecord,
    govTalkKeys: Map<string, string>,
  ) {
    const envelope = at(root, 'Body', 'IRenvelope');
    const expected =
      messageClass === 'IR-CIS-CIS300MR'
        ? 'http://www.govtalk.gov.uk/taxation/CISreturn'
        : 'http://www.govtalk.gov.uk/taxation/CISrequest';
    if (!envelope || envelope.namespaceURI !== expected)
      return {
        errors: [
          {
            raisedBy: 'ChRIS',
            number: '5012',
            type: 'business',
            text: `The Body must hold an IRenvelope of ${expected}.`,
            location: 'Body',
          },
        ],
        irmark: null,
      };
    const irmarkElement = at(envelope, 'IRheader', 'IRmark');
    const irmark = irmarkOf(root);
    if (!irmarkElement || text(irmarkElement) === '')
      return {
        errors: [
          {
            raisedBy: 'ChRIS',
            number: '2022',
            type: 'business',
            text: 'IRMark not found',
            location: 'IRmark',
          },
        ],
        irmark,
      };
    if (!irmark || text(irmarkElement) !== irmark.base64)
      return {
        errors: [
          {
            raisedBy: 'ChRIS',
            number: '2021',
            type: 'business',
            text: 'The supplied IRmark is incorrect.',
            location: 'IRmark',
          },
        ],
        irmark,
      };
    const top = at(envelope, messageClass === 'IR-CIS-CIS300MR' ? 'CISreturn' : 'CISrequest');
    const errors = checkHeader(govTalkKeys, envelope, scheme, at(top, 'Contractor'));
    return { errors, irmark, envelope };
  }

  function verify(requested: ReturnType<typeof checkVerification>['subcontractors']) {
    const number = `V${String(state.nextVerification++).padStart(10, '0')}`;
    let suffix = 0;
    return requested.map((r) => {
      const found = state.register.find(
        (s) =>
          s.utr === r.utr &&
          sameName(s.name, r.name) &&
          (!r.nino || !s.nino || s.nino === r.nino.toUpperCase()) &&
          (!r.crn || !s.crn || s.crn === r.crn.toUpperCase()),
      );
      const matched = Boolean(found && found.treatment !== 'unmatched');
      const letters = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
      const verificationNumber = matched ? number : `${number}${letters[suffix++ % letters.length]}`;
      return {
        name: r.name,
        utr: r.utr,
        matched,
        treatment: matched ? (found?.treatment ?? 'net') : 'unmatched',
        verificationNumber,
      };
    });
  }

  async function handleSubmit(
    request: FastifyRequest,
    reply: FastifyReply,
    root: ReturnType<typeof parse>,
    ctx: AnswerContext,
  ) {
    const details = at(root, 'Header', 'MessageDetails');
    const gatewayTestText = text(at(details, 'GatewayTest'));
    const auth = at(root, 'Header', 'SenderDetails', 'IDAuthentication');
    const senderId = text(at(auth, 'SenderID'));
    const password = at(auth, 'Authentication', 'Value')?.textContent ?? '';
    const govTalkKeys = new Map(
      kids(at(root, 'GovTalkDetails', 'Keys'), 'Key').map((k) => [k.getAttribute('Type') ?? '', text(k)]),
    );
    const vendor = text(at(root, 'GovTalkDetails', 'ChannelRouting', 'Channel', 'URI'));
    if (!['IR-CIS-CIS300MR', 'IR-CIS-VERIFY'].includes(ctx.messageClass))
      return xml(reply, errorAnswer(ctx, [MALFORMED(`Unknown message class '${ctx.messageClass}'.`)]));
    if (!/^[0-9]{4}$/.test(vendor))
      return xml(
        reply,
        errorAnswer(ctx, [MALFORMED('ChannelRouting/Channel/URI must be the 4-digit vendor ID.')]),
      );
    if (gatewayTestText !== '' && gatewayTestText !== '0' && gatewayTestText !== '1')
      return xml(reply, errorAnswer(ctx, [MALFORMED("GatewayTest must be '0' or '1'.")]));
    const scheme = state.schemes.find(
      (s) =>
        s.senderId === senderId &&
        s.password === password &&
        s.taxOfficeNumber === govTalkKeys.get('TaxOfficeNumber') &&
        s.taxOfficeReference.toUpperCase() === (govTalkKeys.get('TaxOfficeReference') ?? '').toUpperCase(),
    );
    const forced = faults.nextAnswer;
    if (forced) faults = { ...faults, nextAnswer: undefined };
    if (!scheme || forced === 'auth') return xml(reply, errorAnswer(ctx, [AUTH_FAILED]));

    const correlationId = crypto.randomBytes(16).toString('hex').toUpperCase();
    const answerCtx = { ...ctx, correlationId };
    const checked = checkSubmission(root, ctx.messageClass, scheme, govTalkKeys);
    let answer: string;
    let outcome: 'accepted' | 'rejected' = 'rejected';
    let filed: FiledRecord | null = null;
    const receivedAt = now();
    if (forced && forced !== 'no-receipt') {
      const f = FORCED[forced];
      answer = errorAnswer(answerCtx, f.errors, f.body ?? []);
    } else if (checked.errors.length > 0 || !('envelope' in checked) || !checked.envelope) {
      answer = errorAnswer(
        answerCtx,
        [
          {
            raisedBy: 'Department',
            number: '3001',
            type: 'business',
            text: 'The submission of this document has failed due to departmental specific business logic in the Body tag.',
          },
        ],
        checked.errors,
      );
    } else {
      const envelope = checked.envelope;
      const base = {
        correlationId,
        scheme: `${scheme.taxOfficeNumber}/${scheme.taxOfficeReference}`,
        receivedAt: receivedAt.toISOString(),
        gatewayTest: gatewayTestText === '1',
        irmark: checked.irmark?.base64 ?? '',
      };
      if (ctx.messageClass === 'IR-CIS-CIS300MR') {
        const { errors, checked: ret } = checkReturn(envelope);
        if (errors.length > 0)
          answer = errorAnswer(
            answerCtx,
            [
              {
                raisedBy: 'Department',
                number: '3001',
                type: 'business',
                text: 'The submission of this document has failed due to departmental specific business logic in the Body tag.',
              },
            ],
            errors,
          );
        else {
          outcome = 'accepted';
          filed = { ...base, kind: 'return', return: ret };
          answer = success(answerCtx, {
            irmark: forced === 'no-receipt' ? null : checked.irmark,
            documentRef: `${scheme.taxOfficeNumber}/${scheme.taxOfficeReference}`,
            at: receivedAt,
            message: {
              code: '9004',
              text: 'The Monthly Return has been processed and passed full validation',
            },
          });
        }
      } else {
        const { errors, subcontractors } = checkVerification(envelope);
        if (errors.length > 0)
          answer = errorAnswer(
            answerCtx,
            [
              {
                raisedBy: 'Department',
                number: '3001',
                type: 'business',
                text: 'The submission of this document has failed due to departmental specific business logic in the Body tag.',
              },
            ],
            errors,
          );
        else {
          outcome = 'accepted';
          const results = verify(subcontractors);
          filed = { ...base, kind: 'verification', verifications: results };
          const data = `<CISresponse xmlns="http://www.govtalk.gov.uk/taxation/CISresponse"><Contractor><UTR>${scheme.utr}</UTR><AOref>${scheme.accountsOfficeReference}</AOref></Contractor>${results
            .map(
              (r) =>
                `<Subcontractor><TradingName>${esc(r.name)}</TradingName><UTR>${r.utr}</UTR><Matched>${r.matched ? 'Y' : 'N'}</Matched><TaxTreatment>${r.treatment}</TaxTreatment><VerificationNumber>${r.verificationNumber}</VerificationNumber></Subcontractor>`,
            )
            .join('')}</CISresponse>`;
          answer = success(answerCtx, {
            irmark: forced === 'no-receipt' ? null : checked.irmark,
            documentRef: `${scheme.taxOfficeNumber}/${scheme.taxOfficeReference}`,
            at: receivedAt,
            message: {
              code: '9006',
              text: 'The CIS Verification Request has been processed and passed full validation',
            },
            responseData: data,
          });
        }
      }
    }
    state.messages.push({
      correlationId,
      transactionId: ctx.transactionId,
      messageClass: ctx.messageClass,
      senderId,
      receivedAt: receivedAt.toISOString(),
      gatewayTest: gatewayTestText === '1',
      answer,
      outcome,
      readyAtMs: receivedAt.getTime() + (faults.answerDelayMs ?? 0),
      pollsLeft: faults.pollsBeforeAnswer ? faults.pollsBeforeAnswer - 1 : 0,
      deleted: false,
    });
    if (filed) state.filed.push(filed);
    save();
    if (faults.ackDelayMs) await new Promise((resolve) => setTimeout(resolve, faults.ackDelayMs));
    if (faults.dropNext === 'ack') {
      faults = { ...faults, dropNext: undefined };
      return drop(request, reply);
    }
    return xml(reply, acknowledgement(answerCtx, `${baseUrl}/poll`, faults.pollInterval ?? defaultInterval));
  }

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    let root;
    try {
      root = parse(String(request.body ?? ''));
    } catch (error) {
      const ctx = { messageClass: '', correlationId: '', transactionId: '', timestamp: gatewayTimestamp() };
      return xml(
        reply,
        errorAnswer(ctx, [MALFORMED(`(${error instanceof Error ? error.message : 'unreadable'})`)]),
      );
    }
    const details = at(root, 'Header', 'MessageDetails');
    const ctx: AnswerContext = {
      messageClass: text(at(details, 'Class')),
      correlationId: text(at(details, 'CorrelationID')),
      transactionId: text(at(details, 'TransactionID')),
      timestamp: gatewayTimestamp(),
    };
    const qualifier = text(at(details, 'Qualifier'));
    const fn = text(at(details, 'Function'));
    if (qualifier === 'request' && fn === 'submit') return handleSubmit(request, reply, root, ctx);
    const message = state.messages.find((m) => m.correlationId === ctx.correlationId && !m.deleted);
    if (qualifier === 'poll') {
      if (!message)
        return xml(
          reply,
          errorAnswer(ctx, [
            { raisedBy: 'ChRIS', number: '5999', type: 'business', text: 'Unknown CorrelationId' },
          ]),
        );
      const answerCtx = { ...ctx, messageClass: message.messageClass, transactionId: message.transactionId };
      if (message.pollsLeft > 0 || Date.now() < message.readyAtMs) {
        if (message.pollsLeft > 0) message.pollsLeft -= 1;
        save();
        return xml(
          reply,
          acknowledgement(answerCtx, `${baseUrl}/poll`, faults.pollInterval ?? defaultInterval),
        );
      }
      if (faults.dropNext === 'answer') {
        faults = { ...faults, dropNext: undefined };
        return drop(request, reply);
      }
      return xml(reply, message.answer);
    }
    if (qualifier === 'request' && fn === 'delete') {
      if (message) {
        message.deleted = true;
        save();
      }
      return xml(reply, deleted(ctx));
    }
    if (qualifier === 'request' && fn === 'list') {
      const auth = at(root, 'Header', 'SenderDetails', 'IDAuthentication');
      const senderId = text(at(auth, 'SenderID'));
      const password = at(auth, 'Authentication', 'Value')?.textContent ?? '';
      if (!state.schemes.some((s) => s.senderId === senderId && s.password === password))
        return xml(reply, errorAnswer(ctx, [AUTH_FAILED]));
      const records = state.messages
        .filter(
          (m) =>
            m.senderId === senderId &&
            !m.deleted &&
            (!ctx.messageClass || m.messageClass === ctx.messageClass),
        )
        .map((m) => ({
          correlationId: m.correlationId,
          transactionId: m.transactionId,
          status:
            m.pollsLeft > 0 || Date.now() < m.readyAtMs
              ? 'SUBMISSION_ACKNOWLEDGE'
              : m.outcome === 'accepted'
                ? 'SUBMISSION_RESPONSE'
                : 'SUBMISSION_ERROR',
          at: new Date(m.receivedAt),
        }));
      return xml(reply, statusReport(ctx, senderId, records));
    }
    return xml(
      reply,
      errorAnswer(ctx, [MALFORMED(`Unknown qualifier '${qualifier}' and function '${fn}'.`)]),
    );
  }

  app.post('/submission', handle);
  app.post('/poll', handle);

  // Control endpoints (loopback only).
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/__hmrc') && !isLoopback(request.socket.remoteAddress))
      return reply.status(403).send({ message: 'loopback only' });
  });
  const sandbox: HmrcSandbox = {
    url: '',
    submissionUrl: '',
    app,
    scheme: DEMO_SCHEME,
    register: () => state.register,
    filed: () => state.filed,
    messages: () => state.messages.map(({ answer: _answer, ...m }) => m),
    setFaults(next) {
      faults = { ...faults, ...hmrcFaultsSchema.parse(next) };
    },
    clearFaults() {
      faults = {};
    },
    release() {
      for (const m of state.messages) {
        m.readyAtMs = 0;
        m.pollsLeft = 0;
      }
      save();
    },
    reset() {
      state = freshState();
      faults = {};
      save();
    },
    close: () => app.close(),
  };
  app.get('/__hmrc/info', async () => ({
    url: baseUrl,
    submissionUrl: `${baseUrl}/submission`,
    schemes: state.schemes,
    register: state.register,
    faults,
  }));
  app.get('/__hmrc/filed', async () => ({ filed: state.filed }));
  app.get('/__hmrc/messages', async () => ({ messages: sandbox.messages() }));
  app.get('/__hmrc/faults', async () => faults);
  app.post('/__hmrc/faults', async (request, reply) => {
    const parsed = hmrcFaultsSchema
      .extend({ clear: z.boolean().optional() })
      .safeParse(JSON.parse(String(request.body || '{}')));
    if (!parsed.success)
      return reply.status(400).send({ message: parsed.error.issues[0]?.message ?? 'invalid faults' });
    const { clear, ...rest } = parsed.data;
    if (clear) faults = {};
    sandbox.setFaults(rest);
    return faults;
  });
  app.delete('/__hmrc/faults', async () => {
    faults = {};
    return faults;
  });
  app.post('/__hmrc/release', async () => {
    sandbox.release();
    return { released: true };
  });
  app.post('/__hmrc/reset', async () => {
    sandbox.reset();
    return { reset: true };
  });
  app.post('/__hmrc/subcontractors', async (request, reply) => {
    const parsed = z
      .object({
        name: z.string().min(1).max(56),
        type: z.enum(['soletrader', 'company', 'partnership', 'trust']).default('soletrader'),
        utr: z.string().regex(/^[0-9]{10}$/),
        nino: z.string().nullable().default(null),
        crn: z.string().nullable().default(null),
        treatment: z.enum(['gross', 'net', 'unmatched']),
      })
      .safeParse(JSON.parse(String(request.body || '{}')));
    if (!parsed.success)
      return reply.status(400).send({ message: parsed.error.issues[0]?.message ?? 'invalid' });
    state.register = [...state.register.filter((s) => s.utr !== parsed.data.utr), parsed.data];
    save();
    return parsed.data;
  });

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  baseUrl = address.replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  sandbox.url = baseUrl;
  sandbox.submissionUrl = `${baseUrl}/submission`;
  return sandbox;
}

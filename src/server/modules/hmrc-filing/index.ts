import type { ServerConfig } from '../../config/env';
import { HMRC_ENDPOINTS, HMRC_PRODUCT } from '../../hmrc/transaction-engine';
import { createMailer } from '../../mail/mailer';
import type { BuildAppOptions } from '../../wiring/build-options';
import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import type { CisBillsService } from '../cis-bills/cis-bills.service';
import type { CisReturnsService, CisStatement } from '../cis-returns/cis-returns.service';
import { renderStatementsPdf, statementFileName } from '../cis-returns/statement-pdf';
import { createHmrcFilingRepository } from './hmrc-filing.repository';
import { registerHmrcFilingRoutes } from './hmrc-filing.routes';
import { createHmrcFilingService, type HmrcEndpointConfig, type StatementData } from './hmrc-filing.service';
import { createReturnInFlight, createVerifiedRates } from './ports';

/** HMRC submissions with a poll due are looked at this often (HMRC's own interval is 10 s or more). */
const HMRC_POLL_MS = 2_000;
/** The deadline reminders are looked at this often. */
const REMINDER_CHECK_MS = 30 * 60_000;

/** Where returns go: demo mode's sandbox, or HMRC_ENDPOINT (test, live or a URL); nowhere when neither. */
function resolveHmrcEndpoints(config: ServerConfig, demo: BuildAppOptions['hmrc']): HmrcEndpointConfig {
  const base = { vendorId: config.hmrc.vendorId, gatewayTest: config.hmrc.gatewayTest, ...HMRC_PRODUCT };
  const configured = config.hmrc.endpoint;
  if (configured === 'test' || configured === 'live')
    return { ...base, submissionUrl: HMRC_ENDPOINTS[configured], kind: configured };
  if (configured && configured !== 'sandbox') return { ...base, submissionUrl: configured, kind: 'custom' };
  if (demo) return { ...base, submissionUrl: demo.submissionUrl, kind: 'sandbox' };
  return { ...base, submissionUrl: null, kind: null };
}

/**
 * What HMRC filing tells the other CIS features, built before them (issue 43): HMRC's answer to a verification is
 * the rate a contact is given, for CIS Bills and CIS Returns alike, and a return on its way to HMRC is not marked
 * filed by hand. Narrow readers of what filing keeps (ports.ts).
 */
export function hmrcVerifications(parts: SharedParts) {
  const repo = createHmrcFilingRepository(parts.db);
  return { verifiedRates: createVerifiedRates(repo), returnInFlight: createReturnInFlight(repo) };
}

/**
 * Filing with HMRC's entry (issues 43 and 46): verifying subcontractors and sending the monthly return. The figures
 * are the CIS month-end's, reached through a narrow port (CisReturnsPort) adapted here from CIS Returns' service;
 * the contacts' CIS settings are CIS Bills'. Its jobs poll submissions on their way and send the deadline reminders.
 */
export function hmrcFilingModule(
  parts: SharedParts,
  deps: { cisReturns: CisReturnsService; cisBills: CisBillsService },
) {
  const { config, db, sync, log } = parts;
  const { cisReturns, cisBills } = deps;
  const service = createHmrcFilingService({
    repo: createHmrcFilingRepository(db),
    box: parts.box,
    audit: parts.audit,
    endpoints: resolveHmrcEndpoints(config, parts.options.hmrc),
    cisReturns: {
      getReturn: (ctx, period, refresh) => cisReturns.getReturn(ctx, period, refresh),
      getSettings: (ctx) => cisReturns.getSettings(ctx),
      getStatements: async (ctx, period, contactId) =>
        (await cisReturns.getStatements(ctx, period, contactId)) as unknown as StatementData[],
      renderStatementsPdf: (statements) => renderStatementsPdf(statements as unknown as CisStatement[]),
      statementFileName,
      // An accepted return marks the month filed with HMRC's receipt (issue 42's one filing path); the whole
      // exchange is also kept with the submission (hmrc_submissions).
      markFiled: (ctx, period, filedOn, receipt, asSent) =>
        cisReturns.recordFiling(ctx, period, {
          filedOn,
          source: 'hmrc',
          receipt: {
            irmark: receipt.irmark,
            receivedAt: receipt.timestamp,
            correlationId: receipt.correlationId,
          },
          asSent,
        }),
      updateRefs: (ctx, contactId, refs) => cisReturns.updateRefs(ctx, contactId, refs),
    },
    syncContacts: (ctx, fresh) => sync.syncContacts(ctx, { force: fresh }),
    checkCisContacts: (ctx, contactIds) => cisBills.checkCisContacts(ctx, contactIds),
    mailer: createMailer({
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      outbox: config.xeroMode === 'demo' ? db : null,
    }),
    instanceId: parts.ledger.instanceId,
    log,
    ...(parts.options.hmrcWaitMs ? { waitMs: parts.options.hmrcWaitMs } : {}),
  });
  return {
    service,
    register(app) {
      registerHmrcFilingRoutes(app, { service });
    },
    jobs: [
      {
        // Submissions to HMRC still on their way: polled when due, looked up when their answer was lost (issue 43).
        name: 'hmrc submissions',
        everyMs: HMRC_POLL_MS,
        runAtStart: true,
        run: () => service.driver.runDue(),
      },
      {
        // 5 days before the 19th: the contractor's reminder of a return not yet filed (issue 43).
        name: 'cis reminders',
        everyMs: REMINDER_CHECK_MS,
        runAtStart: true,
        run: () => service.sendReminders(),
      },
    ],
  } satisfies ModuleEntry;
}

/**
 * `npm run hmrc:check` (issue 43, docs/hmrc.md): checks Ledgerlink's Transaction Engine client against HMRC's test
 * service with real test credentials: it verifies one subcontractor and sends one nil monthly return, both as test
 * submissions (GatewayTest 1: validated and answered, never processed), and prints what HMRC answered. Not run in
 * CI: it needs the credentials HMRC's Software Developer Support Team issues.
 *
 * Settings (environment):
 *   HMRC_ENDPOINT            test (default), or a Transaction Engine URL (the HMRC sandbox: http://127.0.0.1:5056/submission)
 *   HMRC_VENDOR_ID           the 4-digit vendor ID
 *   HMRC_USER_ID, HMRC_PASSWORD                   the test Government Gateway credentials
 *   HMRC_EMPLOYER_REFERENCE, HMRC_CONTRACTOR_UTR, HMRC_AO_REFERENCE   the test contractor scheme
 *   HMRC_CHECK_SUB_NAME, HMRC_CHECK_SUB_UTR       the subcontractor to verify
 *   HMRC_CHECK_SUB_TYPE (soletrader|company|partnership|trust, default company), HMRC_CHECK_SUB_NINO, HMRC_CHECK_SUB_CRN
 *   HMRC_CHECK_PERIOD        YYYY-MM of the nil return (default: the tax month that ended last)
 */
import { getPeriodOf, getTaxMonth, shiftPeriod } from '../src/shared/cis-returns';
import { getUkToday } from '../src/shared/dates';
import {
  buildMonthlyReturn,
  buildVerificationRequest,
  readVerificationResults,
  type SubcontractorType,
} from '../src/server/hmrc/cis-messages';
import { describeErrors } from '../src/server/hmrc/errors';
import { readSuccessReceipt, type CisMessageClass, type GovTalkAnswer } from '../src/server/hmrc/govtalk';
import {
  createTransactionEngine,
  HMRC_ENDPOINTS,
  HMRC_PRODUCT,
  prepareSubmission,
} from '../src/server/hmrc/transaction-engine';
import type { XmlElement } from '../src/server/hmrc/xml';

function need(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) {
    process.stderr.write(
      `hmrc:check: ${name} is not set (see docs/hmrc.md "Checking against HMRC's test service")\n`,
    );
    process.exit(1);
  }
  return value;
}

const endpoint = process.env.HMRC_ENDPOINT?.trim() || 'test';
const submissionUrl = endpoint === 'test' ? HMRC_ENDPOINTS.test : endpoint === 'live' ? '' : endpoint;
if (!submissionUrl) {
  process.stderr.write('hmrc:check: sends test submissions only; HMRC_ENDPOINT=live is refused\n');
  process.exit(1);
}
const sender = {
  senderId: need('HMRC_USER_ID'),
  password: need('HMRC_PASSWORD'),
  vendorId: need('HMRC_VENDOR_ID'),
  ...HMRC_PRODUCT,
  gatewayTest: true,
};
const contractor = {
  employerReference: need('HMRC_EMPLOYER_REFERENCE'),
  utr: need('HMRC_CONTRACTOR_UTR'),
  accountsOfficeReference: need('HMRC_AO_REFERENCE'),
};
const engine = createTransactionEngine({ submissionUrl });
const say = (line: string) => process.stdout.write(`${line}\n`);

async function exchange(
  messageClass: CisMessageClass,
  built: { envelope: XmlElement; keys: { taxOfficeNumber: string; taxOfficeReference: string } },
): Promise<GovTalkAnswer> {
  const transactionId = crypto.randomUUID().replace(/-/g, '').toUpperCase();
  const message = prepareSubmission({
    messageClass,
    transactionId,
    sender,
    keys: built.keys,
    envelope: built.envelope,
    timestamp: new Date().toISOString().slice(0, 19),
  });
  say(`${messageClass}: sending (IRmark ${message.irmark.base64}, TransactionID ${transactionId})`);
  let answer = await engine.submit(message);
  const deadline = Date.now() + 10 * 60_000;
  while (answer.qualifier === 'acknowledgement' && Date.now() < deadline) {
    const wait = Math.max(1, answer.pollInterval ?? 10);
    say(`  acknowledged (CorrelationID ${answer.correlationId}); asking again in ${wait} s`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    answer = await engine.poll({
      messageClass,
      correlationId: answer.correlationId,
      responseEndPoint: answer.responseEndPoint,
      gatewayTest: true,
    });
  }
  if (answer.correlationId)
    await engine
      .delete({
        messageClass,
        correlationId: answer.correlationId,
        responseEndPoint: answer.responseEndPoint,
        gatewayTest: true,
      })
      .catch((error: unknown) => say(`  could not take the answer off HMRC's queue: ${String(error)}`));
  if (answer.qualifier === 'response') {
    const receipt = readSuccessReceipt(answer);
    say(`  accepted: ${receipt?.receiptMessage || receipt?.messages.join(' ') || 'no receipt text'}`);
    if (receipt?.irmark && receipt.irmark !== message.irmark.base64)
      say(`  note: HMRC's receipt IRmark ${receipt.irmark} differs from ours`);
  } else {
    for (const reason of describeErrors(answer.errors, answer.bodyErrors))
      say(`  refused (${reason.number}): ${reason.message}`);
  }
  return answer;
}

const periodEnd = getTaxMonth(
  process.env.HMRC_CHECK_PERIOD?.trim() || shiftPeriod(getPeriodOf(getUkToday()), 1),
).end;
say(`hmrc:check against ${submissionUrl} (GatewayTest 1), scheme ${contractor.employerReference}`);
const verify = await exchange(
  'IR-CIS-VERIFY',
  buildVerificationRequest({
    contractor,
    periodEnd,
    subcontractors: [
      {
        type: (process.env.HMRC_CHECK_SUB_TYPE?.trim() || 'company') as SubcontractorType,
        name: { tradingName: need('HMRC_CHECK_SUB_NAME') },
        utr: need('HMRC_CHECK_SUB_UTR'),
        nino: process.env.HMRC_CHECK_SUB_NINO?.trim() || null,
        crn: process.env.HMRC_CHECK_SUB_CRN?.trim() || null,
      },
    ],
  }),
);
for (const r of readVerificationResults(verify.body))
  say(
    `  ${r.name}: ${r.matched ? 'matched' : 'not matched'}, ${r.taxTreatment} (${r.rate} %), verification ${r.verificationNumber ?? '-'}`,
  );
const nil = await exchange(
  'IR-CIS-CIS300MR',
  buildMonthlyReturn({
    contractor,
    periodEnd,
    subcontractors: [],
    inactive: false,
    declarations: { employmentStatus: false, verification: false, informationCorrect: true },
  }),
);
process.exit(verify.qualifier === 'response' && nil.qualifier === 'response' ? 0 : 1);

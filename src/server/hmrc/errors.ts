/**
 * HMRC's errors in words a contractor can act on (issue 43: "HMRC's errors said in words on the screen").
 *
 * Numbers and their meaning, from HMRC's own material: the Transaction Engine's errors (Document Submission
 * Protocol; hmrc/construction-industry-scheme's GovTalkErrorStatusClassifier treats 1000, 2005 and 3000 as
 * recoverable), the IRmark checks (2021 "The supplied IRmark is incorrect", 2022 "IRMark not found") and CIS
 * online's validation messages ("CIS Reform Online Service, Error Messages": 5012 schema data errors, 7912 the
 * scheme is invalid, inactive or not authorised for the sender; 5005 from hmrc/construction-industry-scheme-
 * external-stub's departmental error). Anything else keeps HMRC's own text, with its number.
 */
import type { GovTalkError } from './govtalk';

/** One reason HMRC gave, ready for the screen. */
export interface HmrcReason {
  /** HMRC's error number ("2021"). */
  number: string;
  /** What happened and what to do, in plain words. */
  message: string;
  /** HMRC's own text, as it sent it. */
  hmrcText: string;
  /** Where in the document HMRC pointed, when it did. */
  location: string | null;
}

/** Errors HMRC itself calls temporary: the same document may be sent again. */
export const RECOVERABLE_ERRORS = new Set(['1000', '2005', '3000']);

const WORDS: Record<string, string> = {
  '1000': "HMRC's system failed while taking this submission. Nothing was filed; send it again.",
  '1001':
    'HMRC could not read the submission: it does not follow HMRC’s format for this message. Nothing was filed.',
  '1002':
    'HMRC refused the Government Gateway user ID or password. Check them in Settings → HMRC filing, then send again.',
  '1046':
    'HMRC refused the Government Gateway user ID or password. Check them in Settings → HMRC filing, then send again.',
  '2005':
    "HMRC's systems did not confirm this submission in time. It may or may not have been received: check HMRC's CIS online service before sending it again.",
  '2021':
    'HMRC found the submission’s IRmark does not match its contents, so it was not filed. Send it again; if this repeats, report it.',
  '2022': 'HMRC found no IRmark on the submission, so it was not filed.',
  '3000': "HMRC's system failed while processing this submission. Nothing was filed; send it again.",
  '5005':
    'The employer reference in the submission does not match the one in its return. Check the employer reference in Settings.',
  '7912':
    'HMRC does not accept this scheme from these credentials: the CIS scheme is unknown, inactive, or the Government Gateway user is not enrolled for it. Check the employer reference and the credentials.',
};

/** HMRC's 3001 only says the department refused the Body; its reasons follow in Body/ErrorResponse. */
const DEPARTMENT_REFUSED = '3001';

function reasonOf(error: GovTalkError): HmrcReason {
  const known = WORDS[error.number];
  const text = error.text || 'no text';
  return {
    number: error.number || 'unknown',
    message: known ?? `HMRC refused it (${error.number || 'no number'}): ${text}`,
    hmrcText: text,
    location: error.location || null,
  };
}

/**
 * The reasons to show for an `error` answer: the department's own reasons when it gave them (a 3001 then adds
 * nothing), else the GovTalk errors. Never empty: an error without any reason still says HMRC refused it.
 */
export function describeErrors(errors: GovTalkError[], bodyErrors: GovTalkError[]): HmrcReason[] {
  const own = errors.filter((e) => !(e.number === DEPARTMENT_REFUSED && bodyErrors.length > 0));
  const reasons = [...bodyErrors.map(reasonOf), ...own.map(reasonOf)];
  if (reasons.length > 0) return reasons;
  return [
    {
      number: 'unknown',
      message: 'HMRC refused the submission without giving a reason. Nothing was filed.',
      hmrcText: '',
      location: null,
    },
  ];
}

/** Whether HMRC said the error is temporary (nothing filed; the same document may go again). */
export function isRecoverable(errors: GovTalkError[]): boolean {
  return errors.length > 0 && errors.every((e) => RECOVERABLE_ERRORS.has(e.number));
}

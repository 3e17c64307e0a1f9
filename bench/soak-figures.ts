/**
 * What the soak records (bench/soak.ts): every action a person took and what they were told, the figures of the
 * month (faults, crashes, resends, races), and the problems the comparison finds (goal: none).
 */
// ── figures ──────────────────────────────────────────────────────────────────────────────────────────────
export type Told = 'success' | 'refused' | 'in-doubt';
export interface Action {
  kind:
    | 'payment'
    | 'approve'
    | 'pending-cash'
    | 'new-invoice'
    | 'bills'
    | 'bill-approve'
    | 'bill-delete'
    | 'journal';
  org: string;
  user: string;
  key: string;
  /**
   * Invoice, draft, bill or period the action is about; a new invoice's is `new:<total in pence>` (each new
   * invoice of the month has its own total, which is how it is found in Xero).
   */
  target: string;
  amountPence?: number;
  /** Tags of the bills a create-bills action made (each bill's line description carries its tag). */
  billTags?: string[];
  /** Where the request went, its body and its headers (besides the key), as the browser would send it again. */
  url: string;
  request: unknown;
  headers?: Record<string, string>;
  told: Told;
  status: number;
  message: string;
  /** The answer's body (the first 2,000 characters). */
  answer: string;
  /** Sent before the backup was restored and not known to the restored database (resent afterwards). */
  afterBackup: boolean;
  /** A resend after the restore of an action sent between the backup and the restore. */
  resent?: boolean;
}
export const actions: Action[] = [];
export const figures = {
  faultDays: 0,
  faultsInjected: 0,
  crashes: 0,
  resends: 0,
  restoreResends: 0,
  restoreResendsByKind: new Map<string, number>(),
  personChanges: 0,
  webhooksDropped: 0,
  webhooksDelayed: 0,
  races: 0,
};
export const afterRestore: string[] = [];
export const problems = {
  duplicates: [] as string[],
  lost: [] as string[],
  untrueAnswers: [] as string[],
  untrueLog: [] as string[],
};

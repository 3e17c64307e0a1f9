import { describe, expect, it } from 'vitest';
import { createLocalBill } from '@/shared/cis-bills';
import { ApiError } from '@/client/lib/api-client';
import { failChunk, keepUnsentBills, settleChunk, startBillRun, type AddedBill } from './bill-run';

function bill(id: string, name: string): AddedBill {
  const local = createLocalBill({
    id,
    contactId: `c-${id}`,
    contactName: name,
    date: '2026-11-20',
    reference: '3326',
    labourPence: 100_00,
    accountCode: '320',
    cisRate: 20,
    vatTreatment: 'none',
    vatPercent: 0,
  });
  return { ...local, attemptId: `attempt-${id}`, cisVerified: true };
}

const bills = [bill('a', 'Alan Builder'), bill('b', 'Bea Plaster'), bill('c', 'Cy Roofing')];

describe('one run of "Create N Bill(s) in Xero"', () => {
  it('a created bill leaves the list; a refused one stays with a new attempt id; an unknown one keeps its id', () => {
    const results = startBillRun(bills);
    settleChunk(results, bills, [
      { id: 'attempt-a', ok: true, status: 'DRAFT' },
      { id: 'attempt-b', ok: false, statusCode: 400, message: 'Contact is archived' },
      { id: 'attempt-c', ok: false, statusCode: 503, message: 'Xero is unavailable' },
    ]);
    expect([...results.values()].map((r) => [r.contactName, r.state])).toEqual([
      ['Alan Builder', 'created'],
      ['Bea Plaster', 'failed'],
      ['Cy Roofing', 'unknown'],
    ]);
    const left = keepUnsentBills(bills, results);
    expect(left.map((b) => b.contactName)).toEqual(['Bea Plaster', 'Cy Roofing']);
    // Refused: Xero has no such bill, so the retry is a new attempt. Unknown: the retry must settle the same one.
    expect(left[0]?.attemptId).not.toBe('attempt-b');
    expect(left[1]?.attemptId).toBe('attempt-c');
  });

  it('a CIS configuration refusal reads as the spec says', () => {
    const results = startBillRun(bills.slice(0, 1));
    settleChunk(results, bills.slice(0, 1), [
      { id: 'attempt-a', ok: false, statusCode: 422, message: 'CIS is not enabled for this contact' },
    ]);
    expect(results.get('a')).toMatchObject({ state: 'failed', title: 'CIS Configuration Error' });
  });

  it('no answer at all: unknown (never failed), so a retry cannot create the bills twice', () => {
    const lost = startBillRun(bills);
    failChunk(lost, bills, new TypeError('Failed to fetch'));
    expect([...lost.values()].every((r) => r.state === 'unknown')).toBe(true);
    expect(keepUnsentBills(bills, lost).map((b) => b.attemptId)).toEqual(bills.map((b) => b.attemptId));

    const refused = startBillRun(bills);
    failChunk(refused, bills, new ApiError('Not enough rights', 403, {}, '/api/xero/create-bills'));
    expect([...refused.values()].map((r) => [r.state, r.message])).toEqual(
      bills.map(() => ['failed', 'Not enough rights']),
    );
    const busy = startBillRun(bills);
    failChunk(busy, bills, new ApiError('In progress', 409, {}, '/api/xero/create-bills'));
    expect(busy.get('a')?.state).toBe('unknown');
  });
});

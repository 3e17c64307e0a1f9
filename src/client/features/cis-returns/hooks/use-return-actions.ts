import { NIL_MARK_LABELS, type CisNilMarkKind, type CisReturn } from '@/shared/cis-returns';
import { formatDateMedium } from '@/shared/dates';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { useCisFiling } from '../api/filing';
import { describeRange } from '../utils/months';

/** What can be done to a month's return, each with its toast: mark filed, undo, mark a nil month, take it off. */
export function useReturnActions(orgId: number, ret: CisReturn) {
  const filing = useCisFiling(orgId);
  const failed = (title: string) => (error: unknown) =>
    toast({ title, description: getMessage(error, 'Please try again'), variant: 'destructive' });

  return {
    pending:
      filing.mark.isPending ||
      filing.unmark.isPending ||
      filing.markNil.isPending ||
      filing.unmarkNil.isPending,
    markFiled() {
      filing.mark.mutate(
        { period: ret.period },
        {
          onSuccess: (f) =>
            toast({
              title: 'Return marked as filed',
              description: `${describeRange(ret)} filed on ${formatDateMedium(f.filedOn)} by ${f.filedBy}.`,
              variant: 'success',
            }),
          onError: failed('Could not mark as filed'),
        },
      );
    },
    undoFiled() {
      filing.unmark.mutate(
        { period: ret.period },
        {
          onSuccess: () => toast({ title: 'Filed mark removed', description: describeRange(ret) }),
          onError: failed('Could not undo'),
        },
      );
    },
    markNil(kind: CisNilMarkKind) {
      filing.markNil.mutate(
        { period: ret.period, kind },
        {
          onSuccess: () =>
            toast({
              title: `Marked “${NIL_MARK_LABELS[kind]}”`,
              description: describeRange(ret),
              variant: 'success',
            }),
          onError: failed('Could not mark the month'),
        },
      );
    },
    unmarkNil() {
      filing.unmarkNil.mutate(
        { period: ret.period },
        {
          onSuccess: () => toast({ title: 'Mark removed', description: describeRange(ret) }),
          onError: failed('Could not remove the mark'),
        },
      );
    },
  };
}

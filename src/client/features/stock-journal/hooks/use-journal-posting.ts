import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useLocation } from 'wouter';
import {
  buildJournalCreateRequest,
  validateJournalConfirmation,
  validateJournalPosting,
  type JournalPeriod,
  type StockJournalEntry,
  type UserMessage,
} from '@/shared/stock-journal';
import { isApiError } from '@/client/lib/api-client';
import { paths } from '@/client/config/paths';
import { toast, type ToastAction } from '@/client/lib/toast';
import { useCreateJournal } from '../api/create-journal';
import { stockJournalKeys } from '../api/query-keys';
import { describeJournalCreated, describeJournalError } from '../utils/messages';
import { newIdempotencyKey } from '@/client/lib/idempotency';

/**
 * Second toasts come 1 s after the first (docs/product/features.md §8, docs/product/features.md §9 "second
 * error toasts delayed 1 s").
 */
export const FOLLOW_UP_TOAST_DELAY_MS = 1000;

export interface PostingSettings {
  customerId: string;
  stockAccountId: string;
  costAccountId: string;
  /** As typed in the Margin Rate filter. */
  marginRate: string;
}

export interface PostOptions {
  journalDate?: string | undefined;
  /**
   * The confirm path (the 'Confirm Stock Journal' dialog): its own check and failure text
   * (docs/product/features.md §5, §8).
   */
  confirmed?: boolean;
  /** Called once Xero has the journal (the open accordion item collapses, docs/product/features.md §4). */
  onPosted?: () => void;
}

function showError(message: UserMessage & { followUp?: UserMessage }, followUpVariant: 'warning' | 'info') {
  toast({ title: message.title, description: message.description, variant: 'destructive' });
  const followUp = message.followUp;
  if (followUp) {
    setTimeout(
      () => toast({ title: followUp.title, description: followUp.description, variant: followUpVariant }),
      FOLLOW_UP_TOAST_DELAY_MS,
    );
  }
}

/**
 * Posting a period's journal (docs/product/features.md §4, §5, §8): the four checks in order, each an error
 * toast; 'Creating Journal...' while sending; the success or verify toast; the error toasts by status. The
 * period is then recorded locally with its journal id and the entries are fetched again.
 */
export function useJournalPosting(orgId: number | null, settings: PostingSettings) {
  const queryClient = useQueryClient();
  const { mutateAsync: sendJournal } = useCreateJournal(orgId);
  const [postingKey, setPostingKey] = useState<string | null>(null);
  const busy = useRef(false);
  const [, navigate] = useLocation();

  /**
   * Open Settings on the default a failed check names (issue 33 item 6): the customer, or the first missing
   * stock or cost account. A margin rate is typed on this page, so it has no Settings step.
   */
  function openSettingsFor(title: string): ToastAction | undefined {
    const field =
      title === 'Customer Required'
        ? 'defaultStockJournalContactId'
        : title === 'Configuration Required'
          ? !settings.stockAccountId
            ? 'defaultStockJournalStockAccountId'
            : !settings.costAccountId
              ? 'defaultStockJournalCostAccountId'
              : undefined
          : undefined;
    if (!field || orgId === null) return undefined;
    return {
      label: 'Open Settings',
      altText: 'Open Settings at the stock journal default',
      onAction: () => navigate(paths.settings.getHref(orgId, undefined, field)),
    };
  }

  /**
   * The checks of docs/product/features.md §5 for a period; shows the toast and returns false when one fails.
   */
  function check(period: JournalPeriod, options: PostOptions = {}): boolean {
    if (options.confirmed) {
      const missing = validateJournalConfirmation({
        periodStart: period.periodStart,
        customerId: settings.customerId,
      });
      if (missing) {
        toast({ title: missing.title, description: missing.description, variant: 'destructive' });
        return false;
      }
    }
    const problem = validateJournalPosting({
      customerId: settings.customerId,
      stockAccountId: settings.stockAccountId,
      costAccountId: settings.costAccountId,
      marginRate: settings.marginRate.trim() === '' ? null : settings.marginRate,
      netTotal: period.netTotal,
    });
    if (problem) {
      const action = openSettingsFor(problem.title);
      toast({
        title: problem.title,
        description: problem.description,
        variant: 'destructive',
        ...(action ? { action } : {}),
      });
      return false;
    }
    return true;
  }

  async function post(period: JournalPeriod, options: PostOptions = {}): Promise<boolean> {
    if (busy.current || orgId === null) return false;
    if (!check(period, options)) return false;
    busy.current = true;
    setPostingKey(period.key);
    // One key per user action: a retry of this request replays instead of posting twice.
    const idempotencyKey = newIdempotencyKey();
    const request = {
      ...buildJournalCreateRequest({
        period,
        contactId: settings.customerId,
        stockAccountId: settings.stockAccountId,
        costAccountId: settings.costAccountId,
        marginRate: Number(settings.marginRate),
      }),
      ...(options.journalDate ? { journalDate: options.journalDate } : {}),
    };
    toast({
      title: 'Creating Journal...',
      description: `Sending the journal for ${period.formattedRange} to Xero.`,
      variant: 'info',
    });
    try {
      const result = await sendJournal({ request, idempotencyKey });
      const created = describeJournalCreated(
        period.periodStart,
        period.periodEnd,
        result.journalId,
        result.status,
      );
      toast({
        title: created.title,
        description: created.description,
        variant: result.journalId ? 'success' : 'warning',
      });
      queryClient.setQueryData<StockJournalEntry[]>(stockJournalKeys.entries(orgId), (entries = []) => [
        ...entries.filter((e) => !(e.periodStart === period.periodStart && e.periodEnd === period.periodEnd)),
        {
          periodStart: period.periodStart,
          periodEnd: period.periodEnd,
          journalId: result.journalId ?? null,
          status: result.status || 'draft',
        },
      ]);
      options.onPosted?.();
      return true;
    } catch (error) {
      const status = isApiError(error) ? error.status : 0;
      if (options.confirmed && status === 0) {
        toast({
          title: 'Error Creating Journal',
          description: 'There was a problem creating the journal. Please try again.',
          variant: 'destructive',
        });
      } else {
        const message = error instanceof Error ? error.message : '';
        showError(
          describeJournalError(status, message),
          status === 401 || status === 403 ? 'warning' : 'info',
        );
      }
      return false;
    } finally {
      busy.current = false;
      setPostingKey(null);
      void queryClient.invalidateQueries({ queryKey: stockJournalKeys.entries(orgId) });
    }
  }

  return { post, check, postingKey, isPosting: postingKey !== null };
}

import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { CisContact } from '@/shared/cis-bills';
import { checkCisContacts } from '../api/check-cis-contacts';
import { cisBillsKeys } from '../api/query-keys';
import { createCisCheckQueue } from '../utils/cis-check-queue';

/** How long the picker gathers the rows coming into view before asking the server about them. */
export const CIS_CHECK_WINDOW_MS = 150;

/**
 * The CIS settings checks of the subcontractors on screen (issue 19): `check(ids)` asks the server about them
 * (batched over a short window, each id once), the answers replace those contacts in the subcontractor list,
 * and `failedIds` holds the ones Xero could not answer for, until they are asked again.
 */
export function useCisContactChecks(orgId: number) {
  const queryClient = useQueryClient();
  const [failedIds, setFailedIds] = useState<ReadonlySet<string>>(() => new Set());

  const queue = useMemo(
    () =>
      createCisCheckQueue({
        windowMs: CIS_CHECK_WINDOW_MS,
        send: (ids) => checkCisContacts(orgId, ids),
        onChecked: (checked) => {
          const byId = new Map(checked.map((c) => [c.id, c]));
          queryClient.setQueryData<CisContact[]>(cisBillsKeys.contacts(orgId), (list) =>
            list?.map((c) => byId.get(c.id) ?? c),
          );
        },
        onFailed: (ids) =>
          setFailedIds((failed) => {
            const next = new Set(failed);
            for (const id of ids) next.add(id);
            return next;
          }),
      }),
    [orgId, queryClient],
  );
  useEffect(() => () => queue.dispose(), [queue]);

  const check = useCallback(
    (ids: readonly string[], options?: { immediate?: boolean }) => {
      if (ids.length === 0) return Promise.resolve();
      setFailedIds((failed) => {
        if (!ids.some((id) => failed.has(id))) return failed;
        const next = new Set(failed);
        for (const id of ids) next.delete(id);
        return next;
      });
      return queue.request(ids, options);
    },
    [queue],
  );

  return { check, failedIds };
}
export type CisContactChecks = ReturnType<typeof useCisContactChecks>;

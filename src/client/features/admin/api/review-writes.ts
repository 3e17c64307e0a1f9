import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  adminReviewWriteDetailSchema,
  adminReviewWriteSchema,
  adminReviewWritesResponseSchema,
  type AdminReviewWrite,
  type AdminReviewWriteDetail,
  type AdminSettleWriteRequest,
} from '@/shared/admin';
import { api } from '@/client/lib/api-client';

/** Writes that need a person (issue 20 part 4). */
export const reviewKeys = {
  list: ['admin', 'writes', 'review'] as const,
  detail: (writeId: number) => ['admin', 'writes', writeId] as const,
};

/** GET /api/admin/writes/review: writes the ledger could not settle. */
export function getReviewWrites(): Promise<AdminReviewWrite[]> {
  return api.get('/api/admin/writes/review', { schema: adminReviewWritesResponseSchema });
}

/** GET /api/admin/writes/{writeId}: the write with what Xero says now (asked on every read). */
export function getReviewWrite(writeId: number): Promise<AdminReviewWriteDetail> {
  return api.get(`/api/admin/writes/${encodeURIComponent(String(writeId))}`, {
    schema: adminReviewWriteDetailSchema,
  });
}

export function useReviewWrites(isAdmin: boolean) {
  return useQuery({ queryKey: reviewKeys.list, queryFn: getReviewWrites, enabled: isAdmin });
}

export function useReviewWrite(writeId: number | null) {
  return useQuery({
    queryKey: reviewKeys.detail(writeId ?? 0),
    queryFn: () => getReviewWrite(writeId ?? 0),
    enabled: writeId !== null,
    staleTime: 0,
    retry: false,
  });
}

/** POST /api/admin/writes/{writeId}/settle: mark done, cancel, or send again. */
export function useSettleWrite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ writeId, body }: { writeId: number; body: AdminSettleWriteRequest }) =>
      api.post(`/api/admin/writes/${encodeURIComponent(String(writeId))}/settle`, body, {
        schema: adminReviewWriteSchema,
      }),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ['admin', 'writes'] });
      await queryClient.invalidateQueries({ queryKey: ['admin', 'audit'] });
    },
  });
}

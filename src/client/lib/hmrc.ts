/**
 * Filing with HMRC (issue 43) from the screens: set-up, verification, the return's submission, statements by email,
 * deadlines and demo mode's outbox. Shared by CIS Bills, CIS Returns, Settings and the Organizations cards, so it
 * lives below the features. Query keys start with the organisation (docs/code-style.md §2).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  cisDeadlineSchema,
  hmrcSetupSchema,
  statementEmailSchema,
  statementEmailsSchema,
  submissionSchema,
  subcontractorStatusesSchema,
  verificationPendingSchema,
  verificationSchema,
  type SubmissionRequest,
  type VerificationRequest,
} from '@/shared/hmrc-filing';
import { api, ApiError } from './api-client';
import { idempotencyHeader } from './idempotency';
import { orgUrl } from './org-url';

export const hmrcKeys = {
  all: (orgId: number) => ['org', orgId, 'hmrc'] as const,
  setup: (orgId: number) => ['org', orgId, 'hmrc', 'setup'] as const,
  subcontractors: (orgId: number) => ['org', orgId, 'hmrc', 'subcontractors'] as const,
  submission: (orgId: number, period: string) => ['org', orgId, 'hmrc', 'submission', period] as const,
  emails: (orgId: number, period: string) => ['org', orgId, 'hmrc', 'emails', period] as const,
  deadline: (orgId: number) => ['org', orgId, 'hmrc', 'deadline'] as const,
  outbox: (orgId: number) => ['org', orgId, 'hmrc', 'outbox'] as const,
};
/** The CIS month-end's own keys start here (src/client/features/cis-returns/api/query-keys.ts). */
const cisReturnsAll = (orgId: number) => ['org', orgId, 'cis-returns'] as const;
/** CIS Bills' subcontractors and drafts: a verification changes the rate a contact is given (issue 43). */
const cisBillsAll = (orgId: number) => ['org', orgId, 'cis-bills'] as const;

export function useHmrcSetup(orgId: number) {
  return useQuery({
    queryKey: hmrcKeys.setup(orgId),
    queryFn: () => api.get(orgUrl('/api/xero/cis/hmrc', orgId), { schema: hmrcSetupSchema }),
  });
}

export function useSaveHmrcSetup(orgId: number) {
  const queryClient = useQueryClient();
  const done = () => queryClient.invalidateQueries({ queryKey: hmrcKeys.all(orgId) });
  return {
    credentials: useMutation({
      mutationFn: (body: { userId: string; password: string }) =>
        api.put(orgUrl('/api/xero/cis/hmrc/credentials', orgId), body, { schema: hmrcSetupSchema }),
      onSuccess: done,
    }),
    remove: useMutation({
      mutationFn: () =>
        api.delete(orgUrl('/api/xero/cis/hmrc/credentials', orgId), { schema: hmrcSetupSchema }),
      onSuccess: done,
    }),
    reminders: useMutation({
      mutationFn: (body: { enabled: boolean; email: string | null }) =>
        api.put(orgUrl('/api/xero/cis/hmrc/reminders', orgId), body, { schema: hmrcSetupSchema }),
      onSuccess: done,
    }),
  };
}

/**
 * The subcontractors with HMRC's rule for each (verify before paying: CISR51050) and their latest verification: as of
 * today (CIS Bills, before the next payment), or as it stood for a tax month's payments (`period`, CIS Returns).
 */
export function useSubcontractorStatuses(orgId: number, period: string | null = null) {
  return useQuery({
    queryKey: period ? [...hmrcKeys.subcontractors(orgId), period] : hmrcKeys.subcontractors(orgId),
    queryFn: () =>
      api.get(orgUrl('/api/xero/cis/subcontractors/verifications', orgId, { period: period ?? undefined }), {
        schema: subcontractorStatusesSchema,
      }),
  });
}

const verifyAnswerSchema = z.union([verificationSchema, verificationPendingSchema]);
export type VerifyAnswer = z.infer<typeof verifyAnswerSchema>;

export function useVerifySubcontractor(orgId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ contactId, body, key }: { contactId: string; body: VerificationRequest; key: string }) =>
      api.post(
        orgUrl(`/api/xero/cis/subcontractors/${encodeURIComponent(contactId)}/verification`, orgId),
        body,
        {
          schema: verifyAnswerSchema,
          headers: idempotencyHeader(key),
        },
      ),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: hmrcKeys.all(orgId) });
      void queryClient.invalidateQueries({ queryKey: cisReturnsAll(orgId) });
      void queryClient.invalidateQueries({ queryKey: cisBillsAll(orgId) });
    },
  });
}

export function getVerification(orgId: number, contactId: string) {
  return api.get(
    orgUrl(`/api/xero/cis/subcontractors/${encodeURIComponent(contactId)}/verification`, orgId),
    {
      schema: verifyAnswerSchema,
    },
  );
}

/**
 * Asks for a verification's answer again; once HMRC has answered, what shows the rate a contact is given (CIS Bills,
 * CIS Returns, the verification lists) is read again.
 */
export function useAskVerificationAgain(orgId: number) {
  const queryClient = useQueryClient();
  return async (contactId: string) => {
    const answer = await getVerification(orgId, contactId);
    if (!('state' in answer)) {
      void queryClient.invalidateQueries({ queryKey: hmrcKeys.all(orgId) });
      void queryClient.invalidateQueries({ queryKey: cisReturnsAll(orgId) });
      void queryClient.invalidateQueries({ queryKey: cisBillsAll(orgId) });
    }
    return answer;
  };
}

/** The month's submission, or null when it was never sent from Ledgerlink; asked again while it is on its way. */
export function useSubmission(orgId: number, period: string) {
  return useQuery({
    queryKey: hmrcKeys.submission(orgId, period),
    queryFn: async () => {
      try {
        return await api.get(
          orgUrl(`/api/xero/cis/returns/${encodeURIComponent(period)}/submission`, orgId),
          {
            schema: submissionSchema,
          },
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    refetchInterval: (query) => (query.state.data?.state === 'sending' ? 3_000 : false),
  });
}

export function useSubmitReturn(orgId: number, period: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, key }: { body: SubmissionRequest; key: string }) =>
      api.post(orgUrl(`/api/xero/cis/returns/${encodeURIComponent(period)}/submission`, orgId), body, {
        schema: submissionSchema,
        headers: idempotencyHeader(key),
      }),
    onSuccess: (submission) => queryClient.setQueryData(hmrcKeys.submission(orgId, period), submission),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: hmrcKeys.deadline(orgId) });
      void queryClient.invalidateQueries({ queryKey: cisReturnsAll(orgId) });
    },
  });
}

export function useStatementEmails(orgId: number, period: string) {
  return useQuery({
    queryKey: hmrcKeys.emails(orgId, period),
    queryFn: () =>
      api.get(orgUrl('/api/xero/cis/statements/emails', orgId, { period }), {
        schema: statementEmailsSchema,
      }),
  });
}

export function useEmailStatement(orgId: number, period: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (contactId: string) =>
      api.post(
        orgUrl(`/api/xero/cis/statements/${encodeURIComponent(contactId)}/email`, orgId, { period }),
        undefined,
        {
          schema: statementEmailSchema,
        },
      ),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: hmrcKeys.emails(orgId, period) });
      void queryClient.invalidateQueries({ queryKey: hmrcKeys.outbox(orgId) });
    },
  });
}

export function useCisDeadline(orgId: number, enabled = true) {
  return useQuery({
    queryKey: hmrcKeys.deadline(orgId),
    queryFn: () => api.get(orgUrl('/api/xero/cis/deadlines', orgId), { schema: cisDeadlineSchema }),
    enabled,
  });
}

const outboxSchema = z.object({
  messages: z.array(
    z.object({
      id: z.number(),
      to: z.string(),
      from: z.string(),
      subject: z.string(),
      body: z.string(),
      attachments: z.array(z.object({ filename: z.string(), contentType: z.string(), size: z.number() })),
      sentAt: z.string(),
    }),
  ),
});
export type OutboxMessage = z.infer<typeof outboxSchema>['messages'][number];

export function useOutbox(orgId: number) {
  return useQuery({
    queryKey: hmrcKeys.outbox(orgId),
    queryFn: () => api.get(orgUrl('/api/xero/cis/outbox', orgId), { schema: outboxSchema }),
  });
}

export const outboxLinks = {
  attachment: (orgId: number, id: number, position: number) =>
    orgUrl(`/api/xero/cis/outbox/${id}/attachments/${position}`, orgId),
  raw: (orgId: number, id: number) => orgUrl(`/api/xero/cis/outbox/${id}/raw`, orgId),
};

// Judge quality on the dashboard: a session's human labels (read and add) and the agreement report.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../api/client';
import type { LabelQueue, LabelRequest, ReferenceRequest } from '../../api/generated/schema';
import { sessionKeys } from '../sessions/queries';

export const qualityKeys = {
  labels: (sessionId: string) => ['labels', sessionId] as const,
  agreement: (criteriaHash: string | null) => ['analytics', 'agreement', criteriaHash] as const,
  queue: (after: string | null) => ['labels', 'queue', after] as const,
};

export function useLabels(sessionId: string) {
  return useQuery({ queryKey: qualityKeys.labels(sessionId), queryFn: () => api.getLabels(sessionId) });
}

/** Store the caller's label (a revision of their earlier one); the session's labels and the agreement refresh. */
export function usePutLabel(sessionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LabelRequest) => api.putLabel(sessionId, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: qualityKeys.labels(sessionId) });
      void queryClient.invalidateQueries({ queryKey: ['analytics', 'agreement'] });
      // the queue's answers are stale now; the page that labels moves on to a new one itself
      void queryClient.invalidateQueries({ queryKey: ['labels', 'queue'], refetchType: 'none' });
    },
  });
}

/** Set the session's reference root cause (a new revision); the session's labels (which carry it) refresh. */
export function usePutReference(sessionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ReferenceRequest) => api.putReference(sessionId, body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: qualityKeys.labels(sessionId) }),
  });
}

/** Withdraw the session's reference root cause (kept as a revision). */
export function useWithdrawReference(sessionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.withdrawReference(sessionId),
    onSuccess: (labels) => queryClient.setQueryData(qualityKeys.labels(sessionId), labels),
  });
}

export function useAgreement(criteriaHash: string | null) {
  return useQuery({ queryKey: qualityKeys.agreement(criteriaHash), queryFn: () => api.agreement(criteriaHash) });
}

/** The caller's labelling queue from `after` on (the session just labelled or skipped; null: from the first). */
export function useLabelQueue(after: string | null) {
  return useQuery({ queryKey: qualityKeys.queue(after), queryFn: () => api.nextToLabel(after) });
}

/** While `sessionId` is being labelled, read what comes after it (the queue's next session, its transcript and its
 * scores), so Enter or s opens it at once and no key typed for it is lost to a loading page. */
export function usePrefetchAfter(sessionId: string | null) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!sessionId) return;
    void queryClient.prefetchQuery({ queryKey: qualityKeys.queue(sessionId), queryFn: () => api.nextToLabel(sessionId) }).then(() => {
      const following = queryClient.getQueryData<LabelQueue>(qualityKeys.queue(sessionId))?.next?.session_id;
      if (!following) return;
      void queryClient.prefetchQuery({ queryKey: sessionKeys.session(following), queryFn: () => api.getSession(following) });
      void queryClient.prefetchQuery({ queryKey: sessionKeys.scoring(following), queryFn: () => api.getSessionScoring(following) });
    });
  }, [queryClient, sessionId]);
}

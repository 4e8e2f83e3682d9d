// Judge quality on the dashboard: a session's human labels (read and add) and the agreement report.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { LabelRequest, ReferenceRequest } from '../../api/generated/schema';

export const qualityKeys = {
  labels: (sessionId: string) => ['labels', sessionId] as const,
  agreement: (criteriaHash: string | null) => ['analytics', 'agreement', criteriaHash] as const,
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

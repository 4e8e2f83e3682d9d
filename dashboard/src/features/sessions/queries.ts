// The sessions feature's server state: the list, one session, its attempts (polled while one runs), Score Session.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type SessionsQuery, api } from '../../api/client';
import type { SessionScore, SessionScoring } from '../../api/generated/schema';
import { isActive } from '../../shared/scoreStatus';

const POLL_MS = 1500;

export const sessionKeys = {
  all: ['sessions'] as const,
  page: (query: SessionsQuery) => ['sessions', query] as const,
  session: (sessionId: string) => ['session', sessionId] as const,
  scoring: (sessionId: string) => ['scores', sessionId] as const,
};

export function useSessionPage(query: SessionsQuery) {
  return useQuery({
    queryKey: sessionKeys.page(query),
    queryFn: () => api.listSessions(query),
    placeholderData: keepPreviousData,
  });
}

export function useSession(sessionId: string) {
  return useQuery({ queryKey: sessionKeys.session(sessionId), queryFn: () => api.getSession(sessionId) });
}

/** The session's scores (the current criteria's, the latest attempt, every attempt), polled while the latest attempt
 * is pending or in progress. When a polled attempt ends, the session list is refreshed too. */
export function useSessionScoring(sessionId: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: sessionKeys.scoring(sessionId),
    queryFn: async () => {
      const before = queryClient.getQueryData<SessionScoring>(sessionKeys.scoring(sessionId));
      const scoring = await api.getSessionScoring(sessionId);
      if (isActive(before?.latest?.status) && !isActive(scoring.latest?.status)) {
        void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
      }
      return scoring;
    },
    refetchInterval: (query) => (isActive(query.state.data?.latest?.status) ? POLL_MS : false),
  });
}

/** Score Session / Re-score: the returned attempt becomes the latest (and is polled from there). */
export function useRequestScore(sessionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (forceRescore: boolean) => api.requestScore(sessionId, forceRescore),
    onSuccess: (attempt: SessionScore) => {
      queryClient.setQueryData<SessionScoring>(sessionKeys.scoring(sessionId), (scoring) =>
        scoring
          ? { ...scoring, latest: attempt, attempts: [attempt, ...scoring.attempts.filter((a) => a.score_id !== attempt.score_id)] }
          : { session_id: sessionId, current: null, latest: attempt, attempts: [attempt] },
      );
      void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
    },
  });
}

// The sessions feature's server state: the list, one session, its attempts (polled while one runs), Score Session.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type SessionsQuery, api } from '../../api/client';
import type { SessionScore } from '../../api/generated/schema';
import { isActive } from '../../shared/scoreStatus';

const POLL_MS = 1500;

export const sessionKeys = {
  all: ['sessions'] as const,
  page: (query: SessionsQuery) => ['sessions', query] as const,
  session: (sessionId: string) => ['session', sessionId] as const,
  latestScore: (sessionId: string) => ['scores', sessionId, 'latest'] as const,
  scoreHistory: (sessionId: string) => ['scores', sessionId, 'history'] as const,
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

/** The latest attempt (null: never scored), polled while it is pending or in progress. When a polled attempt ends,
 * the history and the session list are refreshed too. */
export function useLatestScore(sessionId: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: sessionKeys.latestScore(sessionId),
    queryFn: async () => {
      const before = queryClient.getQueryData<SessionScore | null>(sessionKeys.latestScore(sessionId));
      const latest = await api.getLatestScore(sessionId);
      if (isActive(before?.status) && !isActive(latest?.status)) {
        void queryClient.invalidateQueries({ queryKey: sessionKeys.scoreHistory(sessionId) });
        void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
      }
      return latest;
    },
    refetchInterval: (query) => (isActive(query.state.data?.status) ? POLL_MS : false),
  });
}

export function useScoreHistory(sessionId: string) {
  return useQuery({ queryKey: sessionKeys.scoreHistory(sessionId), queryFn: () => api.getScoreHistory(sessionId) });
}

/** Score Session / Re-score: the returned attempt becomes the latest (and is polled from there). */
export function useRequestScore(sessionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (forceRescore: boolean) => api.requestScore(sessionId, forceRescore),
    onSuccess: (attempt) => {
      queryClient.setQueryData(sessionKeys.latestScore(sessionId), attempt);
      void queryClient.invalidateQueries({ queryKey: sessionKeys.scoreHistory(sessionId) });
      void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
    },
  });
}

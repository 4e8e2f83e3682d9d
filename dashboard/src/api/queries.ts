// Server state through TanStack Query: one cache for every page, retries of transient failures, polling of a
// score attempt until it ends. Components read these hooks; none fetches by hand.
import { QueryClient, keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FleetQuery, type SessionsQuery, api, isTransient } from './client';
import type { RunRequest, RunStatus, ScoreBand, ScoreStatus, ScoringRun, SessionScore } from './generated/schema';

const POLL_MS = 1500;
/** How often the runs list and a run's page refresh while a run is planning or running. */
export const RUN_POLL_MS = 2000;
const MAX_ATTEMPTS = 3;

/** Whether an attempt is still queued or running. Keyed by the generated enum, so a new status fails to compile here. */
const ACTIVE: Record<ScoreStatus, boolean> = {
  pending: true,
  in_progress: true,
  completed: false,
  failed: false,
  cancelled: false,
};

export const isActive = (status: ScoreStatus | null | undefined): boolean => (status ? ACTIVE[status] : false);

/** Whether a run may still change (its selection is being planned, or its attempts are being scored). Keyed by the
 * generated enum, so a new run status fails to compile here. */
const RUN_ACTIVE: Record<RunStatus, boolean> = {
  planning: true,
  running: true,
  completed: false,
  cancelled: false,
  failed: false,
};

export const isRunActive = (status: RunStatus | null | undefined): boolean => (status ? RUN_ACTIVE[status] : false);

export const queryKeys = {
  sessions: ['sessions'] as const,
  sessionPage: (query: SessionsQuery) => ['sessions', query] as const,
  session: (sessionId: string) => ['session', sessionId] as const,
  latestScore: (sessionId: string) => ['scores', sessionId, 'latest'] as const,
  scoreHistory: (sessionId: string) => ['scores', sessionId, 'history'] as const,
  scoreBands: ['score-bands'] as const,
  criteria: ['analytics', 'criteria'] as const,
  distribution: (criteriaHash: string | null) => ['analytics', 'distribution', criteriaHash] as const,
  missingTools: (criteriaHash: string | null) => ['analytics', 'missing-tools', criteriaHash] as const,
  fleetScores: (query: FleetQuery) => ['fleet-scores', query] as const,
  runs: ['runs'] as const,
  runPage: (page: number, pageSize: number) => ['runs', 'page', page, pageSize] as const,
  run: (runId: string) => ['runs', 'one', runId] as const,
  runSessions: (runId: string, page: number, pageSize: number) => ['runs', 'one', runId, 'sessions', page, pageSize] as const,
};

/** The dashboard's cache: a failed read is tried again only when the failure may pass (no answer, 429, 5xx). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: (failures, err) => failures < MAX_ATTEMPTS - 1 && isTransient(err) },
      mutations: { retry: false },
    },
  });
}

export function useSessionPage(query: SessionsQuery) {
  return useQuery({
    queryKey: queryKeys.sessionPage(query),
    queryFn: () => api.listSessions(query),
    placeholderData: keepPreviousData,
  });
}

export function useSession(sessionId: string) {
  return useQuery({ queryKey: queryKeys.session(sessionId), queryFn: () => api.getSession(sessionId) });
}

/** The latest attempt (null: never scored), polled while it is pending or in progress. When a polled attempt ends,
 * the history and the session list are refreshed too. */
export function useLatestScore(sessionId: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: queryKeys.latestScore(sessionId),
    queryFn: async () => {
      const before = queryClient.getQueryData<SessionScore | null>(queryKeys.latestScore(sessionId));
      const latest = await api.getLatestScore(sessionId);
      if (isActive(before?.status) && !isActive(latest?.status)) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.scoreHistory(sessionId) });
        void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      }
      return latest;
    },
    refetchInterval: (query) => (isActive(query.state.data?.status) ? POLL_MS : false),
  });
}

export function useScoreHistory(sessionId: string) {
  return useQuery({ queryKey: queryKeys.scoreHistory(sessionId), queryFn: () => api.getScoreHistory(sessionId) });
}

/** Score Session / Re-score: the returned attempt becomes the latest (and is polled from there). */
export function useRequestScore(sessionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (forceRescore: boolean) => api.requestScore(sessionId, forceRescore),
    onSuccess: (attempt) => {
      queryClient.setQueryData(queryKeys.latestScore(sessionId), attempt);
      void queryClient.invalidateQueries({ queryKey: queryKeys.scoreHistory(sessionId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    },
  });
}

/** A score band as the API defines it (name, label, inclusive bounds), without a distribution's counts. */
export type BandDefinition = Pick<ScoreBand, 'band' | 'label' | 'min_score' | 'max_score'>;

/** The score bands, from the API's score distribution; fetched once per page load (they change only on deploy). */
export function useScoreBands() {
  return useQuery({
    queryKey: queryKeys.scoreBands,
    queryFn: async (): Promise<BandDefinition[]> =>
      (await api.scoreDistribution(null)).bands.map(({ band, label, min_score, max_score }) => ({
        band,
        label,
        min_score,
        max_score,
      })),
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

export function useCriteriaInUse() {
  return useQuery({ queryKey: queryKeys.criteria, queryFn: () => api.criteriaInUse() });
}

export function useScoreDistribution(criteriaHash: string | null) {
  return useQuery({
    queryKey: queryKeys.distribution(criteriaHash),
    queryFn: () => api.scoreDistribution(criteriaHash),
    placeholderData: keepPreviousData,
  });
}

export function useMissingTools(criteriaHash: string | null) {
  return useQuery({
    queryKey: queryKeys.missingTools(criteriaHash),
    queryFn: () => api.missingTools(criteriaHash),
    placeholderData: keepPreviousData,
  });
}

/** A page of runs, newest first; refreshed every RUN_POLL_MS while any run on it is planning or running. */
export function useRunPage(page: number, pageSize: number) {
  return useQuery({
    queryKey: queryKeys.runPage(page, pageSize),
    queryFn: () => api.listRuns(page, pageSize),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.items.some((r) => isRunActive(r.status)) ? RUN_POLL_MS : false),
  });
}

/** One run; refreshed every RUN_POLL_MS until it ends. */
export function useRun(runId: string) {
  return useQuery({
    queryKey: queryKeys.run(runId),
    queryFn: () => api.getRun(runId),
    refetchInterval: (query) => (isRunActive(query.state.data?.status) ? RUN_POLL_MS : false),
  });
}

/** A page of a run's attempts; refreshed every RUN_POLL_MS while `runActive` (the run's own status, polled apart). */
export function useRunSessions(runId: string, page: number, pageSize: number, runActive: boolean) {
  return useQuery({
    queryKey: queryKeys.runSessions(runId, page, pageSize),
    queryFn: () => api.listRunSessions(runId, page, pageSize),
    placeholderData: keepPreviousData,
    refetchInterval: runActive ? RUN_POLL_MS : false,
  });
}

export type RunDraft = Omit<RunRequest, 'dry_run'>;

/** The dry run of a draft: the estimate the form shows before asking to confirm. */
export function useEstimateRun() {
  return useMutation({ mutationFn: (draft: RunDraft) => api.estimateRun(draft) });
}

/** Start a run: it goes to the top of the list (which then polls it). */
export function useStartRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (draft: RunDraft) => api.startRun(draft),
    onSuccess: (run) => {
      queryClient.setQueryData(queryKeys.run(run.run_id), run);
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs });
    },
  });
}

/** Cancel a run: the answer is the run as it is now; the list and the sessions' scores change with it. */
export function useCancelRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => api.cancelRun(runId),
    onSuccess: (run: ScoringRun) => {
      queryClient.setQueryData(queryKeys.run(run.run_id), run);
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    },
  });
}

/** One page of the fleet query; the previous page stays shown while the next loads. */
export function useFleetScores(query: FleetQuery) {
  return useQuery({
    queryKey: queryKeys.fleetScores(query),
    queryFn: () => api.fleetScores(query),
    placeholderData: keepPreviousData,
  });
}

// The runs feature's server state: the list and one run (polled while active), its attempts, estimate, start, cancel.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { RunRequest, RunStatus, ScoringRun } from '../../api/generated/schema';
import { sessionKeys } from '../sessions/queries';

/** How often the runs list and a run's page refresh while a run is planning or running. */
export const RUN_POLL_MS = 2000;

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

export const runKeys = {
  all: ['runs'] as const,
  page: (page: number, pageSize: number) => ['runs', 'page', page, pageSize] as const,
  run: (runId: string) => ['runs', 'one', runId] as const,
  sessions: (runId: string, page: number, pageSize: number) => ['runs', 'one', runId, 'sessions', page, pageSize] as const,
};

/** A page of runs, newest first; refreshed every RUN_POLL_MS while any run on it is planning or running. */
export function useRunPage(page: number, pageSize: number) {
  return useQuery({
    queryKey: runKeys.page(page, pageSize),
    queryFn: () => api.listRuns(page, pageSize),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.items.some((r) => isRunActive(r.status)) ? RUN_POLL_MS : false),
  });
}

/** One run; refreshed every RUN_POLL_MS until it ends. */
export function useRun(runId: string) {
  return useQuery({
    queryKey: runKeys.run(runId),
    queryFn: () => api.getRun(runId),
    refetchInterval: (query) => (isRunActive(query.state.data?.status) ? RUN_POLL_MS : false),
  });
}

/** A page of a run's attempts; refreshed every RUN_POLL_MS while `runActive` (the run's own status, polled apart). */
export function useRunSessions(runId: string, page: number, pageSize: number, runActive: boolean) {
  return useQuery({
    queryKey: runKeys.sessions(runId, page, pageSize),
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
      queryClient.setQueryData(runKeys.run(run.run_id), run);
      void queryClient.invalidateQueries({ queryKey: runKeys.all });
    },
  });
}

/** Cancel a run: the answer is the run as it is now; the list and the sessions' scores change with it. */
export function useCancelRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => api.cancelRun(runId),
    onSuccess: (run: ScoringRun) => {
      queryClient.setQueryData(runKeys.run(run.run_id), run);
      void queryClient.invalidateQueries({ queryKey: runKeys.all });
      void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
    },
  });
}

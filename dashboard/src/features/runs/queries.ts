// The runs feature's server state: the list and one run (polled while active), its attempts, estimate, start, cancel.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api } from '../../api/client';
import type { RunRequest, RunStatus, ScoreStatus, ScoringRun } from '../../api/generated/schema';
import { criteriaDefinitionKey } from '../../shared/criteria';
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
  sessions: (runId: string, page: number, pageSize: number, status: ScoreStatus | null, version: string) =>
    ['runs', 'one', runId, 'sessions', page, pageSize, status, version] as const,
  summary: (runId: string, version: string) => ['runs', 'one', runId, 'summary', version] as const,
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

/** What the run's summary showed when it was read: its status and counts. The attempts table is read again whenever
 * this changes (and only then), so the table and the summary above it never tell two stories, and the table's last
 * read is never older than the run's final state. */
export const runVersion = (run: Pick<ScoringRun, 'status' | 'counts'>): string =>
  [run.status, run.counts.pending, run.counts.in_progress, run.counts.completed, run.counts.failed, run.counts.cancelled].join(':');

/** A page of a run's attempts (only those of `status` when given), read again when the run's `version` changes. */
export function useRunSessions(runId: string, page: number, pageSize: number, status: ScoreStatus | null, version: string) {
  return useQuery({
    queryKey: runKeys.sessions(runId, page, pageSize, status, version),
    queryFn: () => api.listRunSessions(runId, page, pageSize, status),
    placeholderData: keepPreviousData,
  });
}

/** The run's summary (bands, movers), read again when the run's `version` changes, like its attempts table. */
export function useRunSummary(runId: string, version: string) {
  return useQuery({
    queryKey: runKeys.summary(runId, version),
    queryFn: () => api.getRunSummary(runId),
    placeholderData: keepPreviousData,
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

/** How a cancel ended: the run as it is now, and whether it had already ended before the cancel reached it (it
 * completed, or failed, in the meantime: nothing was left to cancel, which is not an error). */
export interface CancelOutcome {
  run: ScoringRun;
  alreadyEnded: boolean;
}

/** Cancel a run: the answer is the run as it is now; the list and the sessions' scores change with it. A run that
 * ended while the confirmation was open answers 400; the run is then read again to say how it ended. */
export function useCancelRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (runId: string): Promise<CancelOutcome> => {
      try {
        return { run: await api.cancelRun(runId), alreadyEnded: false };
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 400) throw err;
        const run = await api.getRun(runId);
        if (isRunActive(run.status)) throw err;
        return { run, alreadyEnded: true };
      }
    },
    onSuccess: ({ run }) => {
      queryClient.setQueryData(runKeys.run(run.run_id), run);
      void queryClient.invalidateQueries({ queryKey: runKeys.all });
      void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
    },
  });
}

/** The criteria in force and its judge: the run form offers batch mode only to a judge that can batch. One cache
 * entry with the rubric choosers' read of the same definition (shared/criteria). */
export function useCurrentJudge() {
  return useQuery({
    queryKey: criteriaDefinitionKey('current'),
    queryFn: () => api.currentCriteria(),
    staleTime: 5 * 60_000,
  });
}

/** The judge providers with a batch API at a discount (the run service's BATCH_PROVIDERS). */
const BATCH_PROVIDERS = ['anthropic', 'openai', 'google'];

/** Why batch mode cannot be chosen with this judge, or null when it can. The run service refuses mode=batch for a
 * judge without a batch API (Bedrock, Claude on Vertex AI, the heuristic judge, a jury): the form says so up front.
 * Gemini on Vertex AI is 'google' here too; the API's refusal of it is shown in its words. */
export function batchUnavailable(llmProvider: string | null | undefined): string | null {
  if (!llmProvider || BATCH_PROVIDERS.includes(llmProvider)) return null;
  return `Batch mode needs a judge with a batch API (anthropic: Message Batches, openai: the Batch API, google: Gemini batch mode); this deployment's judge is ${llmProvider}.`;
}

// The scoring API through openapi-fetch, typed by the generated schema (src/api/generated/schema.ts, `make
// api-types`). This wrapper adds only what the generator does not: the same-origin base URL, a timeout on every call,
// errors as readable messages.
import createClient from 'openapi-fetch';
import type {
  DryRunResult,
  FleetScorePage,
  LabelRequest,
  ReferenceRequest,
  RunRequest,
  ScoreStatus,
  ScoringRun,
  paths,
} from './generated/schema';

/** The fleet query's parameters (`GET /api/v1/scoring/scores`), as the generated schema types them. */
export type FleetQuery = NonNullable<paths['/api/v1/scoring/scores']['get']['parameters']['query']>;

/** The trends' parameters (`GET /api/v1/scoring/analytics/trends`). */
export type TrendsQuery = NonNullable<paths['/api/v1/scoring/analytics/trends']['get']['parameters']['query']>;
/** The sessions list's parameters (`GET /api/v1/scoring/sessions`), as the generated schema types them. */
export type SessionsQuery = NonNullable<paths['/api/v1/scoring/sessions']['get']['parameters']['query']>;

const FLEET_SCORES_PATH = '/api/v1/scoring/scores';

/** The upload's `file_name` as the API accepts it (letters, digits, `_`, `.`, `-`, spaces; at most 255): any other
 * character becomes `_`, keeping the extension that tells JSON Lines (`.jsonl`) from JSON. */
export function uploadFileName(name: string): string {
  const safe = name.replace(/[^\w.\- ]/g, '_').slice(-255);
  return safe || 'upload.json';
}

/** The same-origin address of the fleet query as CSV (every matching row, no cursor): a link, not a fetch, so the
 * browser streams the download itself. Empty and null parameters are left out. */
export function fleetScoresCsvUrl(query: FleetQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === null || value === undefined || value === '' || ['cursor', 'limit', 'format', 'with_total'].includes(name)) continue;
    params.set(name, String(value));
  }
  params.set('format', 'csv');
  return `${FLEET_SCORES_PATH}?${params.toString()}`;
}

const TIMEOUT_MS = 15000;

/** The training export's choices (the API's own parameter names). */
export interface TrainingExportQuery {
  min_score: number;
  criteria_hash: string;
  format: 'openai-chat' | 'normalized';
}

export const TRAINING_EXPORT_PATH = '/api/v1/scoring/exports/training';

/** The training export streamed (where no exports bucket is configured): its JSON lines read as they arrive, each
 * counted by `onLine`, then the whole file as a Blob. A 405 means this deployment writes exports to S3 as jobs
 * (`requestTrainingExport`). No overall timeout: a large export takes as long as it takes; `signal` stops it. */
export async function streamTrainingExport(
  query: TrainingExportQuery,
  onLine: (lines: number) => void,
  signal?: AbortSignal,
  send: typeof fetch = (...args) => globalThis.fetch(...args),
): Promise<{ blob: Blob; lines: number }> {
  const params = new URLSearchParams({ min_score: String(query.min_score), criteria_hash: query.criteria_hash, format: query.format });
  let response: Response;
  try {
    response = await send(`${TRAINING_EXPORT_PATH}?${params.toString()}`, { signal });
  } catch (err) {
    throw new ApiError(null, `the API could not be reached (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!response.ok || !response.body) {
    const body = await response.json().catch(() => undefined);
    throw new ApiError(response.status, describe(body, response));
  }
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let lines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    for (const byte of value) if (byte === 10) lines += 1;
    onLine(lines);
  }
  return { blob: new Blob(parts as BlobPart[], { type: 'application/x-ndjson' }), lines };
}

/** A failed call: the HTTP status (null when no answer came) and what went wrong, in words. */
export class ApiError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The API's `detail` (a sentence, or the list of validation problems), else the HTTP status. */
function describe(body: unknown, response: Response): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((d: { msg?: string }) => d.msg ?? JSON.stringify(d)).join('; ');
  return `the API answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

type Result<T> = { data?: T; error?: unknown; response: Response };

function unwrap<T>({ data, error, response }: Result<T>): T {
  if (response.ok && data !== undefined) return data;
  throw new ApiError(response.status, describe(error, response));
}

/** POST /runs answers a run or a dry run's estimate, depending on `dry_run`. */
const isDryRun = (answer: ScoringRun | DryRunResult): answer is DryRunResult => 'sessions_selected' in answer;

/** The fleet query's route also declares its CSV and JSON Lines bodies; format=json answers a page. */
const isFleetPage = (answer: FleetScorePage | string): answer is FleetScorePage => typeof answer !== 'string';

/** The answer narrowed to what the request asked for; anything else is the API breaking its contract. */
function expect<A, T extends A>(answer: A, is: (a: A) => a is T, what: string): T {
  if (is(answer)) return answer;
  throw new ApiError(null, `the API did not answer with ${what}`);
}

export interface ApiOptions {
  /** Where the API is; '' (the default) is the dashboard's own origin, which serves it. */
  baseUrl?: string;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
}

export function createApi({ baseUrl = '', fetch: send = (...args) => globalThis.fetch(...args), timeoutMs = TIMEOUT_MS }: ApiOptions = {}) {
  const client = createClient<paths>({
    baseUrl,
    fetch: async (request: Request) => {
      try {
        return await send(request, { signal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        if (err instanceof DOMException && err.name === 'TimeoutError') {
          throw new ApiError(null, 'the API did not answer in time');
        }
        throw new ApiError(null, `the API could not be reached (${err instanceof Error ? err.message : String(err)})`);
      }
    },
  });
  const session = (sessionId: string) => ({ params: { path: { session_id: sessionId } } });
  const run = (runId: string) => ({ params: { path: { run_id: runId } } });
  const byCriteria = (criteriaHash: string | null) => (criteriaHash ? { criteria_hash: criteriaHash } : {});

  return {
    /** The values a text filter of the fleet query can take (agents, alert types, missing tools), most frequent first. */
    filterValues: (field: 'agent' | 'alert_type' | 'missing_tool', criteriaHash: string) =>
      client.GET('/api/v1/scoring/scores/values', { params: { query: { field, criteria_hash: criteriaHash } } }).then(unwrap),
    /** A page of sessions: the source's, or only the scored (by band, by score) or the unscored ones. */
    listSessions: (query: SessionsQuery) => client.GET('/api/v1/scoring/sessions', { params: { query } }).then(unwrap),
    /** Sessions whose id, agent or alert type contains the text (uploads and scored sessions), best match first. */
    searchSessions: (text: string, limit = 8) =>
      client.GET('/api/v1/scoring/search', { params: { query: { q: text, limit } } }).then(unwrap),
    getSession: (sessionId: string) => client.GET('/api/v1/scoring/sessions/{session_id}', session(sessionId)).then(unwrap),
    /** The session's scores for its page: the latest completed under the criteria in force, the latest attempt, every
     * attempt; nulls and no attempts (200, not 404) when it was never scored. */
    getSessionScoring: (sessionId: string) =>
      client.GET('/api/v1/scoring/sessions/{session_id}/scoring', session(sessionId)).then(unwrap),
    requestScore: (sessionId: string, forceRescore: boolean) =>
      client
        .POST('/api/v1/scoring/sessions/{session_id}/score', { ...session(sessionId), body: { force_rescore: forceRescore } })
        .then(unwrap),
    scoreDistribution: (criteriaHash: string | null) =>
      client.GET('/api/v1/scoring/analytics/score-distribution', { params: { query: byCriteria(criteriaHash) } }).then(unwrap),
    missingTools: (criteriaHash: string | null, limit = 10) =>
      client
        .GET('/api/v1/scoring/analytics/missing-tools', { params: { query: { ...byCriteria(criteriaHash), limit } } })
        .then(unwrap),
    criteriaInUse: () => client.GET('/api/v1/scoring/analytics/criteria').then(unwrap),
    getLabels: (sessionId: string) => client.GET('/api/v1/scoring/sessions/{session_id}/labels', session(sessionId)).then(unwrap),
    putLabel: (sessionId: string, body: LabelRequest) =>
      client.PUT('/api/v1/scoring/sessions/{session_id}/labels', { ...session(sessionId), body }).then(unwrap),
    putReference: (sessionId: string, body: ReferenceRequest) =>
      client.PUT('/api/v1/scoring/sessions/{session_id}/labels/reference', { ...session(sessionId), body }).then(unwrap),
    withdrawReference: (sessionId: string) =>
      client.DELETE('/api/v1/scoring/sessions/{session_id}/labels/reference', session(sessionId)).then(unwrap),
    /** The caller's labelling queue: the next session scored under the current criteria they have not labelled,
     * after `after` (the one just labelled or skipped), and how many are left. */
    nextToLabel: (after: string | null) =>
      client.GET('/api/v1/scoring/labels/next', { params: { query: after ? { after } : {} } }).then(unwrap),
    /** Upload a trace file as it was saved (JSON, or JSON Lines when its name ends in .jsonl); the API detects the
     * format and answers what it stored and what it skipped. */
    importSession: async (file: File) => {
      const fileName = uploadFileName(file.name);
      const jsonLines = fileName.toLowerCase().endsWith('.jsonl');
      const text = await file.text();
      return client
        .POST('/api/v1/scoring/sessions:import', {
          params: { query: { file_name: fileName } },
          body: text,
          // the file's text as it is (a string body is sent unchanged; JSON.stringify would quote it)
          bodySerializer: (body: unknown) => body as string,
          headers: { 'Content-Type': jsonLines ? 'application/x-ndjson' : 'application/json' },
        })
        .then(unwrap);
    },
    /** The criteria in force and the judge (provider, model) that scores with them. */
    currentCriteria: () => client.GET('/api/v1/scoring/criteria/current').then(unwrap),
    /** Stored criteria by their hash, with the rubric their scores were judged by (its dimensions, labels, maxima). */
    criteria: (criteriaHash: string) =>
      client.GET('/api/v1/scoring/criteria/{criteria_hash}', { params: { path: { criteria_hash: criteriaHash } } }).then(unwrap),
    agreement: (criteriaHash: string | null) =>
      client.GET('/api/v1/scoring/analytics/agreement', { params: { query: byCriteria(criteriaHash) } }).then(unwrap),
    listRuns: (page: number, pageSize: number) =>
      client.GET('/api/v1/scoring/runs', { params: { query: { page, page_size: pageSize } } }).then(unwrap),
    getRun: (runId: string) => client.GET('/api/v1/scoring/runs/{run_id}', run(runId)).then(unwrap),
    /** The run's completed scores by band and against each session's previous score (the movers first). */
    getRunSummary: (runId: string) => client.GET('/api/v1/scoring/runs/{run_id}/summary', run(runId)).then(unwrap),
    /** A page of the run's attempts, by session id, with their status, score, band and error. */
    listRunSessions: (runId: string, page: number, pageSize: number, status: ScoreStatus | null = null) =>
      client
        .GET('/api/v1/scoring/runs/{run_id}/sessions', {
          params: { path: { run_id: runId }, query: { page, page_size: pageSize, ...(status ? { status } : {}) } },
        })
        .then(unwrap),
    /** The dry run: what a run with this request would select and cost; nothing is stored or queued. */
    estimateRun: (request: Omit<RunRequest, 'dry_run'>) =>
      client
        .POST('/api/v1/scoring/runs', { body: { ...request, dry_run: true } })
        .then(unwrap)
        .then((answer) => expect(answer, isDryRun, 'an estimate')),
    /** Start the run: the API answers 202 with the run in status `planning`. */
    startRun: (request: Omit<RunRequest, 'dry_run'>) =>
      client
        .POST('/api/v1/scoring/runs', { body: { ...request, dry_run: false } })
        .then(unwrap)
        .then((answer) => expect(answer, (a): a is ScoringRun => !isDryRun(a), 'a run')),
    /** A page of the fleet query (format json); pass the page's next_cursor as `cursor` for the next. */
    fleetScores: (query: FleetQuery) =>
      client
        .GET(FLEET_SCORES_PATH, { params: { query: { ...query, format: 'json' } } })
        .then(unwrap)
        .then((answer) => expect(answer, isFleetPage, 'a page of scores')),
    /** The training export as a job written to S3 (deployments with an exports bucket): poll `getExport`. */
    requestTrainingExport: (query: TrainingExportQuery) => client.POST(TRAINING_EXPORT_PATH, { body: query }).then(unwrap),
    /** An export job; once completed, its presigned download URL. */
    getExport: (exportId: string) =>
      client.GET('/api/v1/scoring/exports/{export_id}', { params: { path: { export_id: exportId } } }).then(unwrap),
    cancelRun: (runId: string) => client.POST('/api/v1/scoring/runs/{run_id}/cancel', run(runId)).then(unwrap),
    /** Score statistics per day or week, for the fleet or per agent or alert type (null criteria: any). */
    trends: (query: TrendsQuery) => client.GET('/api/v1/scoring/analytics/trends', { params: { query } }).then(unwrap),
    /** How the candidate criteria scores the sessions the base criteria scored. */
    criteriaComparison: (base: string, candidate: string) =>
      client.GET('/api/v1/scoring/analytics/criteria-comparison', { params: { query: { base, candidate } } }).then(unwrap),
    /** A page of the sessions whose latest score has the failure tag (null criteria: any), newest scored first. */
    failureTagSessions: (tag: string, criteriaHash: string | null, page = 1, pageSize = 50) =>
      client
        .GET('/api/v1/scoring/analytics/failure-tags/{tag}/sessions', {
          params: { path: { tag }, query: { criteria_hash: criteriaHash ?? 'any', page, page_size: pageSize } },
        })
        .then(unwrap),
    /** A page of the sessions whose latest score names the tool missing (null criteria: any), with the rationale. */
    missingToolSessions: (toolName: string, criteriaHash: string | null, cursor: string | null, limit = 50) =>
      client
        .GET('/api/v1/scoring/analytics/missing-tools/{tool_name}/sessions', {
          params: {
            path: { tool_name: toolName },
            query: { criteria_hash: criteriaHash ?? 'any', limit, ...(cursor ? { cursor } : {}) },
          },
        })
        .then(unwrap),
  };
}

export type Api = ReturnType<typeof createApi>;

export const api: Api = createApi();

/** What went wrong, in words, for any error a query or mutation ends with. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Whether an error may pass on a retry: no answer, or a 5xx/429; a 4xx says the request itself is wrong. */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.status === null || err.status === 429 || err.status >= 500;
}

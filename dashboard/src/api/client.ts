// The scoring API, same origin as the dashboard. Every call has a timeout; errors become readable messages.
import axios, { AxiosError } from 'axios';
import type {
  CriteriaUsage,
  MissingToolsReport,
  ScoreDistribution,
  SessionDetail,
  SessionListPage,
  SessionScore,
} from './types';

const PREFIX = '/api/v1/scoring';

export const http = axios.create({ timeout: 15000 });

const enc = encodeURIComponent;

export const api = {
  listSessions: (page: number, pageSize: number) =>
    http.get<SessionListPage>(`${PREFIX}/sessions`, { params: { page, page_size: pageSize } }).then((r) => r.data),
  getSession: (sessionId: string) => http.get<SessionDetail>(`${PREFIX}/sessions/${enc(sessionId)}`).then((r) => r.data),
  /** The latest attempt, or null when the session was never scored (404). */
  getLatestScore: (sessionId: string) =>
    http
      .get<SessionScore>(`${PREFIX}/sessions/${enc(sessionId)}/score`)
      .then((r) => r.data)
      .catch((err: unknown) => {
        if (err instanceof AxiosError && err.response?.status === 404) return null;
        throw err;
      }),
  getScoreHistory: (sessionId: string) =>
    http
      .get<SessionScore[]>(`${PREFIX}/sessions/${enc(sessionId)}/scores`)
      .then((r) => r.data)
      .catch((err: unknown) => {
        if (err instanceof AxiosError && err.response?.status === 404) return [];
        throw err;
      }),
  requestScore: (sessionId: string, forceRescore: boolean) =>
    http
      .post<SessionScore>(`${PREFIX}/sessions/${enc(sessionId)}/score`, { force_rescore: forceRescore })
      .then((r) => r.data),
  scoreDistribution: (criteriaHash: string | null) =>
    http
      .get<ScoreDistribution>(`${PREFIX}/analytics/score-distribution`, {
        params: criteriaHash ? { criteria_hash: criteriaHash } : {},
      })
      .then((r) => r.data),
  missingTools: (criteriaHash: string | null, limit = 10) =>
    http
      .get<MissingToolsReport>(`${PREFIX}/analytics/missing-tools`, {
        params: criteriaHash ? { criteria_hash: criteriaHash, limit } : { limit },
      })
      .then((r) => r.data),
  criteriaInUse: () => http.get<CriteriaUsage[]>(`${PREFIX}/analytics/criteria`).then((r) => r.data),
};

/** What went wrong, in words: the API's `detail`, else the HTTP status, else the network error. */
export function errorMessage(err: unknown): string {
  if (err instanceof AxiosError) {
    const detail = (err.response?.data as { detail?: unknown } | undefined)?.detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) {
      return detail.map((d: { msg?: string }) => d.msg ?? JSON.stringify(d)).join('; ');
    }
    if (err.response) return `the API answered ${err.response.status} ${err.response.statusText}`;
    if (err.code === 'ECONNABORTED') return 'the API did not answer in time';
    return `the API could not be reached (${err.message})`;
  }
  return err instanceof Error ? err.message : String(err);
}

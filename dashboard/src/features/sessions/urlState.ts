// The Sessions page's state lives in the URL query string (shareable; a reload restores it), with the API's own
// parameter names so a shared URL reads like the request. These functions turn the URL into the list's request and
// back, keeping the combinations the API accepts: a band or a sort by score lists scored sessions; unscored lists
// page with cursors instead of page numbers, and so does a source list in a start range (the API scans the source).
import type { SessionsQuery } from '../../api/client';
import { RANGES, rangeStart } from '../../shared/ranges';

export type Scored = 'any' | 'scored' | 'unscored';
export type SessionSort = 'source' | 'score_desc' | 'score_asc';

export interface SessionsState {
  scored: Scored;
  bands: string[];
  /** Only scores under the current criteria count (the API's `criteria=current`, the default: the score the Scores
   * page and a session's page show); off, each session's latest completed score under any criteria (`criteria=any`). */
  currentOnly: boolean;
  sort: SessionSort;
  page: number;
  pageSize: number;
  /** Unscored lists: the cursors that opened each page after the first; the last one opened the current page. */
  cursors: string[];
  /** A relative range of the sessions' start ('24h', '7d', '30d'), counted from now at each request; it takes the
   * place of startedFrom. '' for none. */
  range: string;
  /** Started on or after this UTC day (YYYY-MM-DD); '' for no bound. */
  startedFrom: string;
  /** Started before this UTC day (exclusive); '' for no bound. */
  startedBefore: string;
}

export const DEFAULT_STATE: SessionsState = {
  scored: 'any',
  bands: [],
  currentOnly: true,
  sort: 'source',
  page: 1,
  pageSize: 20,
  cursors: [],
  range: '',
  startedFrom: '',
  startedBefore: '',
};

export const PAGE_SIZES = [10, 20, 50, 100];

const SCORED: readonly Scored[] = ['any', 'scored', 'unscored'];
const SORTS: readonly SessionSort[] = ['source', 'score_desc', 'score_asc'];

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayOrEmpty = (text: string | null): string => (text && DAY.test(text) && !Number.isNaN(Date.parse(text)) ? text : '');

/** Whether a start range is set (a preset or either day). */
export const dated = (state: SessionsState): boolean => Boolean(RANGES[state.range] || state.startedFrom || state.startedBefore);

/** Whether the list pages with cursors: an unscored list, or the source's list in a start range (both scan the
 * source, which the API cannot number in pages). */
export const pagesByCursor = (state: SessionsState): boolean =>
  state.scored === 'unscored' || (state.scored === 'any' && dated(state));

/** The state the API accepts: unscored drops bands and score sorts; bands or a score sort mean scored; only lists
 * that scan the source have cursors, and they have no page numbers; a preset range replaces the "from" day, and a
 * "before" day not after the "from" day is dropped. */
export function normalise(state: SessionsState): SessionsState {
  const range = RANGES[state.range] ? state.range : '';
  const startedFrom = range ? '' : state.startedFrom;
  const startedBefore = startedFrom && state.startedBefore && state.startedBefore <= startedFrom ? '' : state.startedBefore;
  const withRange = { ...state, range, startedFrom, startedBefore };
  if (state.scored === 'unscored') return { ...withRange, bands: [], sort: 'source', page: 1 };
  const scored = state.bands.length > 0 || state.sort !== 'source' ? 'scored' : state.scored;
  const next = { ...withRange, scored };
  return pagesByCursor(next) ? { ...next, page: 1 } : { ...next, cursors: [] };
}

/** A filter or sort changed: back to the first page (and, for an unscored list, the start of the source). */
export const restart = (state: SessionsState): SessionsState => normalise({ ...state, page: 1, cursors: [] });

export function stateFromParams(params: URLSearchParams): SessionsState {
  const scored = params.get('scored') as Scored | null;
  const sort = params.get('sort') as SessionSort | null;
  const pageSize = Number(params.get('page_size'));
  return normalise({
    scored: scored && SCORED.includes(scored) ? scored : DEFAULT_STATE.scored,
    bands: [...new Set(params.getAll('band').filter(Boolean))],
    currentOnly: params.get('criteria') !== 'any',
    sort: sort && SORTS.includes(sort) ? sort : DEFAULT_STATE.sort,
    page: Math.max(1, Math.floor(Number(params.get('page'))) || 1),
    pageSize: PAGE_SIZES.includes(pageSize) ? pageSize : DEFAULT_STATE.pageSize,
    cursors: params.getAll('cursor').filter(Boolean),
    range: params.get('range') ?? '',
    startedFrom: dayOrEmpty(params.get('started_after')),
    startedBefore: dayOrEmpty(params.get('started_before')),
  });
}

/** The URL of a state: only what differs from the defaults; bands and cursors as repeated parameters. */
export function paramsFromState(state: SessionsState): URLSearchParams {
  const s = normalise(state);
  const params = new URLSearchParams();
  if (s.scored !== DEFAULT_STATE.scored) params.set('scored', s.scored);
  for (const band of s.bands) params.append('band', band);
  if (!s.currentOnly) params.set('criteria', 'any');
  if (s.sort !== DEFAULT_STATE.sort) params.set('sort', s.sort);
  if (s.page !== 1) params.set('page', String(s.page));
  if (s.pageSize !== DEFAULT_STATE.pageSize) params.set('page_size', String(s.pageSize));
  if (s.range) params.set('range', s.range);
  if (s.startedFrom) params.set('started_after', s.startedFrom);
  if (s.startedBefore) params.set('started_before', s.startedBefore);
  for (const cursor of s.cursors) params.append('cursor', cursor);
  return params;
}

/** The request for the current page (a preset range counted from now, to the minute; days as the start of the UTC
 * day). */
export function queryFromState(state: SessionsState, now: number = Date.now()): SessionsQuery {
  const s = normalise(state);
  const query: SessionsQuery = { page_size: s.pageSize, scored: s.scored, criteria: s.currentOnly ? 'current' : 'any', sort: s.sort };
  if (s.bands.length > 0) query.band = s.bands;
  const after = rangeStart(s.range, now) ?? (s.startedFrom ? `${s.startedFrom}T00:00:00Z` : null);
  if (after) query.started_after = after;
  if (s.startedBefore) query.started_before = `${s.startedBefore}T00:00:00Z`;
  if (pagesByCursor(s)) {
    const cursor = s.cursors.at(-1);
    if (cursor) query.cursor = cursor;
  } else {
    query.page = s.page;
  }
  return query;
}

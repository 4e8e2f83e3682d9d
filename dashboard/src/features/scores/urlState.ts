// The Scores page's state lives in the URL query string (shareable; a reload restores it). These functions turn the
// URL into the fleet query's parameters plus the stack of cursors of the pages before the current one, and back.
import type { FleetQuery } from '../../api/client';
import { rangeStart } from '../../shared/ranges';

/** The fleet query's sort keys that every rubric has; the others are the dimension keys of the rubric(s) of the
 * criteria in scope (`sortWithin`). */
export const FIXED_SORTS = ['total_score', 'scored_at', 'session_started_at'] as const;
/** A sort key: one of `FIXED_SORTS`, or a dimension key (what the URL names; the API checks it against the rubric). */
export type SortColumn = string;
export type Order = 'asc' | 'desc';

/** A dimension key's shape (the rubric's KEY_PATTERN): a URL's `sort` of another shape is the default sort. */
const KEY = /^[a-z][a-z0-9_]{0,62}$/;
const isFixedSort = (sort: string) => (FIXED_SORTS as readonly string[]).includes(sort);

/** The filters a person sets in the form (or a chart element sets when it opens the table); text as typed, '' for
 * "any". */
export interface ScoreFilters {
  criteria: string;
  minScore: string;
  maxScore: string;
  band: string;
  agent: string;
  alertType: string;
  missingTool: string;
  /** Scored at or after: a UTC day (YYYY-MM-DD, from the form) or an instant (ISO 8601, from a trend point). */
  scoredAfter: string;
  /** Scored before (exclusive), as scoredAfter. */
  scoredBefore: string;
  latestOnly: boolean;
  /** A relative time range ('24h', '7d', '30d'): scored within the last of it, counted from now at each request (a
   * shared URL keeps meaning "the last 7 days"); it takes the place of scoredAfter. '' for none. */
  range: string;
  /** One session's scores (a scatter point). */
  sessionId: string;
  /** With comparedBand: only sessions in that band under this criteria (a cell of the band transitions). */
  comparedTo: string;
  comparedBand: string;
}

export interface ScoresState {
  filters: ScoreFilters;
  sort: SortColumn;
  order: Order;
  /** The cursors that opened each page after the first; the last one opened the current page. */
  cursors: string[];
}

export const NO_FILTERS: ScoreFilters = {
  criteria: 'current',
  minScore: '',
  maxScore: '',
  band: '',
  agent: '',
  alertType: '',
  missingTool: '',
  scoredAfter: '',
  scoredBefore: '',
  latestOnly: true,
  range: '',
  sessionId: '',
  comparedTo: '',
  comparedBand: '',
};

const DEFAULT_SORT: SortColumn = 'scored_at';
const DEFAULT_ORDER: Order = 'desc';
export const PAGE_SIZE = 50;

/** URL parameter of each text filter; the same names as the API's, so a shared URL reads like the request. */
const TEXT_PARAMS: [keyof ScoreFilters, string][] = [
  ['minScore', 'min_score'],
  ['maxScore', 'max_score'],
  ['band', 'band'],
  ['agent', 'agent'],
  ['alertType', 'alert_type'],
  ['missingTool', 'missing_tool'],
  ['scoredAfter', 'scored_after'],
  ['scoredBefore', 'scored_before'],
  ['range', 'range'],
  ['sessionId', 'session_id'],
  ['comparedTo', 'compared_to'],
  ['comparedBand', 'compared_band'],
];

const isSort = (value: string | null): value is SortColumn => KEY.test(value ?? '');

/** The state as the rubric(s) in scope allow it: a dimension sort they lack (a URL of another criteria's dimension)
 * sorts by the total instead, from the first page; unchanged while the dimensions are not known (undefined). */
export function sortWithin(state: ScoresState, dimensionKeys: readonly string[] | undefined): ScoresState {
  if (isFixedSort(state.sort) || dimensionKeys === undefined || dimensionKeys.includes(state.sort)) return state;
  return { ...state, sort: 'total_score', cursors: [] };
}

/** Whether the sort is a dimension (known only with the rubric): not the total or a time. */
export const isDimensionSort = (sort: SortColumn) => !isFixedSort(sort);

export function stateFromParams(params: URLSearchParams): ScoresState {
  const filters: ScoreFilters = {
    ...NO_FILTERS,
    criteria: params.get('criteria_hash') || NO_FILTERS.criteria,
    latestOnly: params.get('latest_only') !== 'false',
  };
  for (const [key, name] of TEXT_PARAMS) (filters[key] as string) = params.get(name) ?? '';
  const sort = params.get('sort');
  return {
    filters,
    sort: isSort(sort) ? sort : DEFAULT_SORT,
    order: params.get('order') === 'asc' ? 'asc' : DEFAULT_ORDER,
    cursors: params.getAll('cursor').filter(Boolean),
  };
}

/** The URL of a state: only what differs from the defaults, the cursors as repeated `cursor` parameters. */
export function paramsFromState({ filters, sort, order, cursors }: ScoresState): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.criteria && filters.criteria !== NO_FILTERS.criteria) params.set('criteria_hash', filters.criteria);
  for (const [key, name] of TEXT_PARAMS) {
    const value = (filters[key] as string).trim();
    if (value) params.set(name, value);
  }
  if (!filters.latestOnly) params.set('latest_only', 'false');
  if (sort !== DEFAULT_SORT) params.set('sort', sort);
  if (order !== DEFAULT_ORDER) params.set('order', order);
  for (const cursor of cursors) params.append('cursor', cursor);
  return params;
}

/** The Scores page's address showing the scores with these filters (the rest as the page's defaults): where a chart
 * element leads. */
export function scoresHref(filters: Partial<ScoreFilters>): string {
  const params = paramsFromState({ filters: { ...NO_FILTERS, ...filters }, sort: DEFAULT_SORT, order: DEFAULT_ORDER, cursors: [] });
  const query = params.toString();
  return query ? `/scores?${query}` : '/scores';
}

export { RANGES, rangeStart } from '../../shared/ranges';

const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Number(text));
const textOrNull = (text: string): string | null => text.trim() || null;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A form's day as the start of that UTC day; an instant as it is. */
const instantOrNull = (text: string): string | null => {
  const value = text.trim();
  if (!value) return null;
  return DAY.test(value) ? `${value}T00:00:00Z` : value;
};

/** What is wrong with the filters, per field ('' when nothing): checked before any request is sent. */
export function problemsOf(filters: ScoreFilters): Partial<Record<keyof ScoreFilters, string>> {
  const problems: Partial<Record<keyof ScoreFilters, string>> = {};
  const score = (key: 'minScore' | 'maxScore') => {
    const text = filters[key].trim();
    if (text === '') return null;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0 || value > 100) {
      problems[key] = 'A whole number from 0 to 100';
      return null;
    }
    return value;
  };
  const low = score('minScore');
  const high = score('maxScore');
  if (low !== null && high !== null && low > high) problems.maxScore = `At least the min score (${low})`;
  const instant = (key: 'scoredAfter' | 'scoredBefore') => {
    const value = instantOrNull(filters[key]);
    if (value === null) return null;
    const time = Date.parse(value);
    if (Number.isNaN(time)) problems[key] = 'A date (YYYY-MM-DD)';
    return Number.isNaN(time) ? null : time;
  };
  const after = instant('scoredAfter');
  const before = instant('scoredBefore');
  if (after !== null && before !== null && after >= before) problems.scoredBefore = 'After the "from" date';
  return problems;
}

/** The request for the current page (without a cursor on the first); every page asks for the total too. */
export function queryFromState({ filters, sort, order, cursors }: ScoresState): FleetQuery {
  const query: FleetQuery = {
    criteria_hash: filters.criteria || NO_FILTERS.criteria,
    latest_only: filters.latestOnly,
    sort,
    order,
    limit: PAGE_SIZE,
    with_total: true,
  };
  const optional: FleetQuery = {
    min_score: numberOrNull(filters.minScore),
    max_score: numberOrNull(filters.maxScore),
    band: textOrNull(filters.band),
    agent: textOrNull(filters.agent),
    alert_type: textOrNull(filters.alertType),
    missing_tool: textOrNull(filters.missingTool),
    scored_after: rangeStart(filters.range) ?? instantOrNull(filters.scoredAfter),
    scored_before: instantOrNull(filters.scoredBefore),
    session_id: textOrNull(filters.sessionId),
    compared_to: filters.comparedBand.trim() ? textOrNull(filters.comparedTo) : null,
    compared_band: filters.comparedTo.trim() ? textOrNull(filters.comparedBand) : null,
    cursor: cursors.at(-1) ?? null,
  };
  for (const [name, value] of Object.entries(optional)) {
    if (value !== null) Object.assign(query, { [name]: value });
  }
  return query;
}

// The Analytics views' server state: the score distribution and missing tools, trends, the criteria comparison, and
// the sessions missing a tool (paged).
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type TrendsQuery, api } from '../../api/client';

export const analyticsKeys = {
  distribution: (criteriaHash: string | null) => ['analytics', 'distribution', criteriaHash] as const,
  missingTools: (criteriaHash: string | null) => ['analytics', 'missing-tools', criteriaHash] as const,
  trends: (query: TrendsQuery) => ['analytics', 'trends', query] as const,
  comparison: (base: string, candidate: string) => ['analytics', 'criteria-comparison', base, candidate] as const,
  toolSessions: (tool: string, criteriaHash: string | null) => ['analytics', 'missing-tool-sessions', tool, criteriaHash] as const,
};

export function useScoreDistribution(criteriaHash: string | null) {
  return useQuery({
    queryKey: analyticsKeys.distribution(criteriaHash),
    queryFn: () => api.scoreDistribution(criteriaHash),
    placeholderData: keepPreviousData,
  });
}

export function useMissingTools(criteriaHash: string | null) {
  return useQuery({
    queryKey: analyticsKeys.missingTools(criteriaHash),
    queryFn: () => api.missingTools(criteriaHash),
    placeholderData: keepPreviousData,
  });
}

/** The trends of a query; nothing is asked while `enabled` is false (a date range the page refuses). */
export function useTrends(query: TrendsQuery, enabled = true) {
  return useQuery({
    queryKey: analyticsKeys.trends(query),
    queryFn: () => api.trends(query),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** The comparison of two criteria; nothing is asked until both are picked and differ. */
export function useCriteriaComparison(base: string | null, candidate: string | null) {
  return useQuery({
    queryKey: analyticsKeys.comparison(base ?? '', candidate ?? ''),
    queryFn: () => api.criteriaComparison(base ?? '', candidate ?? ''),
    enabled: Boolean(base && candidate && base !== candidate),
    placeholderData: keepPreviousData,
  });
}

/** Sessions per page of a tool's sessions view. */
export const TOOL_SESSIONS_PAGE = 20;

/** The sessions missing a tool, a page at a time (each page's next_cursor asks for the next). */
export function useToolSessions(tool: string, criteriaHash: string | null) {
  return useInfiniteQuery({
    queryKey: analyticsKeys.toolSessions(tool, criteriaHash),
    queryFn: ({ pageParam }) => api.missingToolSessions(tool, criteriaHash, pageParam, TOOL_SESSIONS_PAGE),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
}

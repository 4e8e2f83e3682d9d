// The Scores page's server state: pages of the fleet query.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FleetQuery, api } from '../../api/client';

export type FilterField = 'agent' | 'alert_type' | 'missing_tool';

export const scoresKeys = {
  page: (query: FleetQuery) => ['fleet-scores', query] as const,
  values: (field: FilterField, criteria: string) => ['fleet-scores', 'values', field, criteria] as const,
};

/** One page of the fleet query; the previous page stays shown while the next loads. Nothing is asked while the
 * filters are invalid (`enabled` false): the form says what to fix instead. */
export function useFleetScores(query: FleetQuery, enabled = true) {
  return useQuery({
    queryKey: scoresKeys.page(query),
    queryFn: () => api.fleetScores(query),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** What a text filter can be set to, with the sessions of each (kept for a minute: the values change slowly). */
export function useFilterValues(field: FilterField, criteria: string) {
  return useQuery({
    queryKey: scoresKeys.values(field, criteria),
    queryFn: () => api.filterValues(field, criteria),
    staleTime: 60_000,
  });
}

// The Scores page's server state: pages of the fleet query.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FleetQuery, api } from '../../api/client';

export const scoresKeys = {
  page: (query: FleetQuery) => ['fleet-scores', query] as const,
};

/** One page of the fleet query; the previous page stays shown while the next loads. */
export function useFleetScores(query: FleetQuery) {
  return useQuery({
    queryKey: scoresKeys.page(query),
    queryFn: () => api.fleetScores(query),
    placeholderData: keepPreviousData,
  });
}

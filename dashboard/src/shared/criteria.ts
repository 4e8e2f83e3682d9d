// The criteria that have scores (every analytics view and filter picks from them).
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { CriteriaUsage } from '../api/generated/schema';

export const criteriaKey = ['analytics', 'criteria'] as const;

export function useCriteriaInUse() {
  return useQuery({ queryKey: criteriaKey, queryFn: () => api.criteriaInUse() });
}

/** A short name for a criteria hash: its first 12 digits, the judge, "current". */
export const criteriaName = (c: CriteriaUsage) =>
  `${c.criteria_hash.slice(0, 12)} · ${c.llm_provider ?? '?'}${c.is_current ? ' (current)' : ''} · ${c.completed_sessions} sessions`;

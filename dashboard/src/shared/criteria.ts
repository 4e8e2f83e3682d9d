// The criteria that have scores (every analytics view and filter picks from them).
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { CriteriaUsage } from '../api/generated/schema';

export const criteriaKey = ['analytics', 'criteria'] as const;

export function useCriteriaInUse() {
  return useQuery({ queryKey: criteriaKey, queryFn: () => api.criteriaInUse() });
}

/** A criteria's name. The criteria file has no name or version of its own, so a criteria is called by its judge
 * model (what a person tells criteria apart by) and the first 8 digits of its hash (what tells two prompts for the
 * same model apart): "claude-sonnet-4-6 #3f1c0a9b". */
export const criteriaLabel = (c: Pick<CriteriaUsage, 'criteria_hash' | 'llm_model' | 'llm_provider'>) =>
  `${c.llm_model || c.llm_provider || 'criteria'} #${c.criteria_hash.slice(0, 8)}`;

/** A criteria as a picker lists it: its name, whether it is in force, the sessions it scored. */
export const criteriaName = (c: CriteriaUsage) =>
  `${criteriaLabel(c)}${c.is_current ? ' (current)' : ''} · ${c.completed_sessions} sessions`;

/** The name of any criteria hash: from the stored criteria once they are loaded, its hash's first digits before. */
export function useCriteriaNames(): (criteriaHash: string) => string {
  const { data: criteria = [] } = useCriteriaInUse();
  return (criteriaHash: string) => {
    const known = criteria.find((c) => c.criteria_hash === criteriaHash);
    return known ? criteriaLabel(known) : `#${criteriaHash.slice(0, 8)}`;
  };
}

// The criteria that have scores (every analytics view and filter picks from them).
import { useQueries, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { CriteriaDefinition, CriteriaUsage } from '../api/generated/schema';
import { type RubricDimension, mergeDimensions } from './dimensions';

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

/** A criteria definition with its rubric: 'current' (the criteria in force) or a criteria hash. */
export const criteriaDefinitionKey = (scope: string) => ['criteria', 'definition', scope] as const;

const rubricDimensions = (definition: CriteriaDefinition): RubricDimension[] =>
  (definition.rubric?.dimensions ?? []).map(({ key, label, max_points }) => ({ key, label, max_points }));

export interface ScopeDimensions {
  /** The dimensions, each with its label and maximum; undefined until every rubric in scope is read, and where one
   * could not be (`failed`). */
  dimensions: RubricDimension[] | undefined;
  pending: boolean;
  failed: boolean;
}

/** The dimensions of the rubric(s) of the criteria in scope, as the fleet query accepts them as sort keys: 'current'
 * (the criteria in force), a criteria hash (its rubric: GET /criteria/{hash}), or 'any' / null (every rubric in use:
 * the current one's first, then each other criteria's with completed sessions, each key once). A definition never
 * changes, so each is read once. */
export function useRubricDimensions(scope: string | null): ScopeDimensions {
  const every = scope === null || scope === 'any';
  const inUse = useCriteriaInUse();
  const others = every ? (inUse.data ?? []).filter((c) => !c.is_current && c.completed_sessions > 0).map((c) => c.criteria_hash) : [];
  const scopes = every ? ['current', ...others] : [scope || 'current'];
  const definitions = useQueries({
    queries: scopes.map((s) => ({
      queryKey: criteriaDefinitionKey(s),
      queryFn: () => (s === 'current' ? api.currentCriteria() : api.criteria(s)),
      staleTime: s === 'current' ? 5 * 60_000 : Infinity,
    })),
  });
  const pending = (every && inUse.isPending) || definitions.some((d) => d.isPending);
  const failed = (every && inUse.isError) || definitions.some((d) => d.isError);
  const dimensions =
    pending || failed ? undefined : mergeDimensions(definitions.map((d) => (d.data ? rubricDimensions(d.data) : [])));
  return { dimensions, pending: pending && !failed, failed };
}

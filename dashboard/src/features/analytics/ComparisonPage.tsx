// Compare criteria: how a candidate criteria scores the sessions the base scored, before adopting it.
import { Box, Typography } from '@mui/material';
import { errorMessage } from '../../api/client';
import { useCriteriaComparison } from './queries';
import { useCriteriaInUse } from '../../shared/criteria';
import { EmptyState, ErrorState, Loading, Refreshing } from '../../shared/components/StateViews';
import { AnalyticsNav } from './AnalyticsNav';
import { ComparisonView } from './ComparisonView';
import { CriteriaSelect } from './CriteriaSelect';
import { useUrlState } from '../../shared/urlState';

export function ComparisonPage() {
  const { params, update } = useUrlState();
  const criteriaQuery = useCriteriaInUse();
  const criteria = criteriaQuery.data ?? [];
  // Defaults: the current criteria as the base, the newest other one as the candidate.
  const current = criteria.find((c) => c.is_current) ?? criteria[0];
  const base = params.get('base') ?? current?.criteria_hash ?? null;
  const other = [...criteria].filter((c) => c.criteria_hash !== base).sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  const candidate = params.get('candidate') ?? other?.criteria_hash ?? null;
  const comparison = useCriteriaComparison(base, candidate);

  return (
    <>
      <Typography variant="h5" component="h1" sx={{ mb: 1 }}>
        Analytics: compare criteria
      </Typography>
      <AnalyticsNav />
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center', mb: 2 }}>
        <CriteriaSelect label="Base" value={base} criteria={criteria} onChange={(h) => update({ base: h })} />
        <CriteriaSelect label="Candidate" value={candidate} criteria={criteria} onChange={(h) => update({ candidate: h })} />
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        The sessions with a latest completed score under both criteria; deltas are candidate minus base.
      </Typography>
      {criteriaQuery.error && <ErrorState message={`Could not load the criteria: ${errorMessage(criteriaQuery.error)}`} onRetry={() => void criteriaQuery.refetch()} />}
      {criteriaQuery.isSuccess && criteria.length < 2 && (
        <EmptyState title="Only one criteria has scores">
          Change the criteria (judge, model or prompt) and score some sessions again to compare the two.
        </EmptyState>
      )}
      {base && candidate && base === candidate && <EmptyState title="Pick two different criteria" />}
      {comparison.error && <ErrorState message={`Could not compare: ${errorMessage(comparison.error)}`} onRetry={() => void comparison.refetch()} />}
      {comparison.isLoading && <Loading what="the comparison" />}
      {comparison.data && base !== candidate && (
        <Box aria-busy={comparison.isFetching}>
          <Refreshing active={comparison.isFetching} what="the comparison" />
          <ComparisonView comparison={comparison.data} />
        </Box>
      )}
    </>
  );
}

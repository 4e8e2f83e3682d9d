import {
  Box,
  Button,
  Card,
  CardContent,
  FormControl,
  InputLabel,
  MenuItem,
  Select,
  Typography,
} from '@mui/material';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { criteriaName, useCriteriaInUse } from '../../shared/criteria';
import { EmptyState, ErrorState, Loading, Refreshing } from '../../shared/components/StateViews';
import { bandColours } from '../../shared/scoreBands';
import { useMissingTools, useScoreDistribution } from './queries';
import { scoresHref } from '../scores/urlState';
import { CountBarChart } from './CountBarChart';
import { AnalyticsNav } from './AnalyticsNav';

const ALL = 'all';

/** Score distribution over the five bands and the most frequent missing tools, per criteria hash. */
export function AnalyticsPage() {
  const [params, setParams] = useSearchParams();
  const criteriaHash = params.get('criteria_hash');
  const queries = [useCriteriaInUse(), useScoreDistribution(criteriaHash), useMissingTools(criteriaHash)] as const;
  const [{ data: criteria = [] }, { data: distribution }, { data: tools }] = queries;
  const failed = queries.find((q) => q.error);
  const error = failed?.error ? errorMessage(failed.error) : null;
  const loading = queries.some((q) => q.isFetching);
  const load = () => queries.forEach((q) => void q.refetch());

  const update = (next: Record<string, string | null>) => {
    const merged = new URLSearchParams(params);
    for (const [key, value] of Object.entries(next)) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    setParams(merged);
  };

  // The scores behind a bar: each session's latest completed score (as the charts count them) under the criteria shown.
  const scope = criteriaHash ?? 'any';

  return (
    <>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center', mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ flexGrow: 1 }}>
          Analytics
        </Typography>
        <Button
          variant="outlined"
          component={RouterLink}
          to="/runs/new?which=not_current_criteria&name=Re-score%20with%20current%20criteria"
          title="Opens a new scoring run of every session without a score under the current criteria"
        >
          Re-score with current criteria
        </Button>
        <FormControl size="small" sx={{ minWidth: 260, maxWidth: '100%' }}>
          <InputLabel id="criteria-label">Criteria</InputLabel>
          <Select
            labelId="criteria-label"
            label="Criteria"
            value={criteriaHash ?? ALL}
            onChange={(e) => update({ criteria_hash: e.target.value === ALL ? null : e.target.value })}
          >
            <MenuItem value={ALL}>All criteria</MenuItem>
            {criteria.map((c) => (
              <MenuItem key={c.criteria_hash} value={c.criteria_hash}>
                {criteriaName(c)}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
      </Box>
      <AnalyticsNav />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        Each session counts once, with its latest completed score. Click a bar to open its scores.
      </Typography>
      {error && <ErrorState message={`Could not load the analytics: ${error}`} onRetry={load} />}
      {loading && !distribution && <Loading what="analytics" />}
      {distribution && tools && <Refreshing active={loading} what="analytics" />}
      {distribution && tools && (
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }} aria-busy={loading}>
          <Card variant="outlined" data-testid="distribution-card">
            <CardContent>
              <Typography variant="h6" component="h2">
                Score distribution
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
                {distribution.total} session{distribution.total === 1 ? '' : 's'} scored
              </Typography>
              {distribution.total === 0 ? (
                <EmptyState title="No completed scores yet">Score a session to see the distribution.</EmptyState>
              ) : (
                <CountBarChart
                  title="Score distribution"
                  testId="band-bar"
                  hrefOf={(band) => scoresHref({ criteria: scope, band })}
                  bars={distribution.bands.map((b) => ({
                    key: b.band,
                    label: b.label,
                    hint: `${b.min_score}-${b.max_score}`,
                    count: b.count,
                    color: bandColours(b.band).background,
                  }))}
                />
              )}
            </CardContent>
          </Card>
          <Card variant="outlined" data-testid="missing-tools-chart">
            <CardContent>
              <Typography variant="h6" component="h2">
                Most frequent missing tools
              </Typography>
              {tools.items.length === 0 ? (
                <EmptyState title="No missing tools named">No completed score names a missing tool.</EmptyState>
              ) : (
                <CountBarChart
                  title="Most frequent missing tools"
                  testId="tool-bar"
                  hrefOf={(tool) => scoresHref({ criteria: scope, missingTool: tool })}
                  bars={tools.items.map((t) => ({ key: t.tool_name, label: t.tool_name, count: t.count, color: '#5c6bc0' }))}
                />
              )}
            </CardContent>
          </Card>
        </Box>
      )}
    </>
  );
}

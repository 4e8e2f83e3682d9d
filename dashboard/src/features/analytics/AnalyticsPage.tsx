import {
  Box,
  Button,
  Card,
  CardContent,
  FormControl,
  InputLabel,
  Link,
  List,
  ListItem,
  MenuItem,
  Select,
  Typography,
} from '@mui/material';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { criteriaName, useCriteriaInUse } from '../../shared/criteria';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { bandColours } from '../../shared/scoreBands';
import { useMissingTools, useScoreDistribution } from './queries';
import { CountBarChart } from './CountBarChart';
import { AnalyticsNav } from './AnalyticsNav';

const ALL = 'all';

/** Score distribution over the five bands and the most frequent missing tools, per criteria hash. */
export function AnalyticsPage() {
  const [params, setParams] = useSearchParams();
  const criteriaHash = params.get('criteria_hash');
  const band = params.get('band');
  const tool = params.get('tool');
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

  const selectedBand = distribution?.bands.find((b) => b.band === band);
  const selectedTool = tools?.items.find((t) => t.tool_name === tool);
  const drill = selectedBand
    ? { title: `${selectedBand.label} (${selectedBand.min_score}-${selectedBand.max_score})`, ...selectedBand }
    : selectedTool
      ? { title: `Missing ${selectedTool.tool_name}`, ...selectedTool }
      : null;

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
            onChange={(e) => update({ criteria_hash: e.target.value === ALL ? null : e.target.value, band: null, tool: null })}
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
        Each session counts once, with its latest completed score. Click a bar to list its sessions.
      </Typography>
      {error && <ErrorState message={`Could not load the analytics: ${error}`} onRetry={load} />}
      {loading && !distribution && <Loading what="analytics" />}
      {distribution && tools && (
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, opacity: loading ? 0.5 : 1 }}>
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
                  selected={band}
                  onSelect={(key) => update({ band: key, tool: null })}
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
                  selected={tool}
                  onSelect={(key) => update({ tool: key, band: null })}
                  bars={tools.items.map((t) => ({ key: t.tool_name, label: t.tool_name, count: t.count, color: '#5c6bc0' }))}
                />
              )}
            </CardContent>
          </Card>
        </Box>
      )}
      {drill && (
        <Card variant="outlined" sx={{ mt: 2 }} data-testid="drilldown">
          <CardContent>
            <Typography variant="h6" component="h2">
              {drill.title}: {drill.count} session{drill.count === 1 ? '' : 's'}
            </Typography>
            {drill.session_ids.length < drill.count && (
              <Typography variant="caption" color="text.secondary">
                Showing the {drill.session_ids.length} most recently scored.
              </Typography>
            )}
            <List dense>
              {drill.session_ids.map((id) => (
                <ListItem key={id} disableGutters>
                  <Link component={RouterLink} to={`/sessions/${encodeURIComponent(id)}`} sx={{ overflowWrap: 'anywhere' }}>
                    {id}
                  </Link>
                </ListItem>
              ))}
            </List>
          </CardContent>
        </Card>
      )}
    </>
  );
}

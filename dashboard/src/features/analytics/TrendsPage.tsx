// Trends: how scores move per day or week of scoring, for the fleet or per agent or alert type.
import {
  Alert,
  Box,
  Card,
  CardContent,
  FormControl,
  InputLabel,
  MenuItem,
  Select,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { errorMessage } from '../../api/client';
import { type TrendBucket, type TrendGroup, trendBucketValues, trendGroupValues } from '../../api/generated/schema';
import { useTrends } from './queries';
import { useCriteriaInUse, useRubricDimensions } from '../../shared/criteria';
import { EmptyState, ErrorState, Loading, Refreshing } from '../../shared/components/StateViews';
import { AnalyticsNav } from './AnalyticsNav';
import { CriteriaSelect } from './CriteriaSelect';
import { oneOf } from './format';
import { STAT_LABELS, STATS, TrendCharts, trendDimensions } from './TrendCharts';
import { useUrlState } from '../../shared/urlState';
import { scoresHref } from '../scores/urlState';

const BUCKET_LABELS: Record<TrendBucket, string> = { week: 'Week', day: 'Day' };
/** The API's buckets, the default (week) first: `oneOf` falls back to the first. */
const BUCKETS: readonly TrendBucket[] = ['week', ...trendBucketValues.filter((b) => b !== 'week')];
const GROUPS: readonly TrendGroup[] = trendGroupValues;
const GROUP_LABELS: Record<TrendGroup, string> = { none: 'Whole fleet', agent: 'Agent', alert_type: 'Alert type' };

export function TrendsPage() {
  const { params, update } = useUrlState();
  const criteriaHash = params.get('criteria_hash');
  const bucket = oneOf(params.get('bucket'), BUCKETS);
  const groupBy = oneOf(params.get('group_by'), GROUPS);
  const stat = oneOf(params.get('stat'), STATS);
  const { data: criteria = [] } = useCriteriaInUse();
  // the rubric(s) of the criteria in scope (null: every rubric in use) label and bound the dimensions
  const rubric = useRubricDimensions(criteriaHash);
  const from = params.get('scored_after') ?? '';
  const before = params.get('scored_before') ?? '';
  const rangeProblem = from && before && from >= before ? 'The "before" date must come after the "from" date.' : null;
  const trends = useTrends(
    {
      bucket,
      group_by: groupBy,
      ...(criteriaHash ? { criteria_hash: criteriaHash } : {}),
      ...(from ? { scored_after: `${from}T00:00:00Z` } : {}),
      ...(before ? { scored_before: `${before}T00:00:00Z` } : {}),
    },
    !rangeProblem,
  );
  const report = rangeProblem ? undefined : trends.data;
  const dimensions = trendDimensions(report, rubric.dimensions);
  // a dimension the rubric lacks (another criteria's, in a shared URL) is the first one's place
  const dimension = dimensions.find((d) => d.key === params.get('dimension'))?.key ?? dimensions[0]?.key ?? '';
  /** A point's scores: each session's latest completed score scored in that bucket (UTC), as the trends count them,
   * of the line's agent or alert type when it is a group's line. */
  const scoresOfPoint = (bucketStart: string, group: string | null) => {
    const start = bucketStart.slice(0, 10);
    const end = new Date(`${start}T00:00:00Z`);
    end.setUTCDate(end.getUTCDate() + (bucket === 'week' ? 7 : 1));
    return scoresHref({
      criteria: criteriaHash ?? 'any',
      scoredAfter: start,
      scoredBefore: end.toISOString().slice(0, 10),
      ...(group !== null && groupBy === 'agent' ? { agent: group } : {}),
      ...(group !== null && groupBy === 'alert_type' ? { alertType: group } : {}),
    });
  };

  return (
    <>
      <Typography variant="h5" component="h1" sx={{ mb: 1 }}>
        Analytics: trends
      </Typography>
      <AnalyticsNav />
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center', mb: 2 }}>
        <CriteriaSelect label="Criteria" value={criteriaHash} criteria={criteria} allowAll onChange={(h) => update({ criteria_hash: h })} />
        <ToggleButtonGroup
          size="small"
          exclusive
          value={bucket}
          onChange={(_, next: TrendBucket | null) => next && update({ bucket: next })}
          aria-label="Bucket"
        >
          {BUCKETS.map((b) => (
            <ToggleButton key={b} value={b}>
              {BUCKET_LABELS[b]}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
        <FormControl size="small" sx={{ minWidth: 150 }}>
          <InputLabel id="trend-group-label">Lines per</InputLabel>
          <Select labelId="trend-group-label" label="Lines per" value={groupBy} onChange={(e) => update({ group_by: e.target.value })}>
            {GROUPS.map((g) => (
              <MenuItem key={g} value={g}>
                {GROUP_LABELS[g]}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <TextField
          size="small"
          type="date"
          label="Scored from (UTC)"
          value={from}
          onChange={(e) => update({ scored_after: e.target.value || null })}
          slotProps={{ inputLabel: { shrink: true } }}
          sx={{ width: 170 }}
        />
        <TextField
          size="small"
          type="date"
          label="Scored before (UTC)"
          value={before}
          onChange={(e) => update({ scored_before: e.target.value || null })}
          slotProps={{ inputLabel: { shrink: true } }}
          error={Boolean(rangeProblem)}
          sx={{ width: 170 }}
        />
        {groupBy !== 'none' && (
          <>
            <FormControl size="small" sx={{ minWidth: 150 }}>
              <InputLabel id="trend-stat-label">Total statistic</InputLabel>
              <Select labelId="trend-stat-label" label="Total statistic" value={stat} onChange={(e) => update({ stat: e.target.value })}>
                {STATS.map((s) => (
                  <MenuItem key={s} value={s}>
                    {STAT_LABELS[s]}
                  </MenuItem>
                ))}
              </Select>
            </FormControl>
            {dimensions.length > 0 && (
              <FormControl size="small" sx={{ minWidth: 170 }}>
                <InputLabel id="trend-dimension-label">Dimension</InputLabel>
                <Select
                  labelId="trend-dimension-label"
                  label="Dimension"
                  value={dimension}
                  onChange={(e) => update({ dimension: e.target.value })}
                >
                  {dimensions.map((d) => (
                    <MenuItem key={d.key} value={d.key}>
                      {d.label} (of {d.max_points})
                    </MenuItem>
                  ))}
                </Select>
              </FormControl>
            )}
          </>
        )}
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        Each session counts once, with its latest completed score, in the {bucket} it was scored (UTC).
      </Typography>
      {rangeProblem && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {rangeProblem}
        </Alert>
      )}
      {trends.error && <ErrorState message={`Could not load the trends: ${errorMessage(trends.error)}`} onRetry={() => void trends.refetch()} />}
      {(trends.isPending || rubric.pending) && !rangeProblem && <Loading what="trends" />}
      {report && !rubric.pending && (
        <Card variant="outlined" aria-busy={trends.isFetching}>
          <Refreshing active={trends.isFetching} what="trends" />
          <CardContent>
            {report.points.length === 0 ? (
              <EmptyState title="No completed scores in this selection">Score sessions (or seed demo data: see Development) to see trends.</EmptyState>
            ) : (
              <TrendCharts report={report} stat={stat} dimension={dimension} rubric={rubric.dimensions} hrefOf={scoresOfPoint} />
            )}
          </CardContent>
        </Card>
      )}
    </>
  );
}

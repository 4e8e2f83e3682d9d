import { Box, MenuItem, TextField, Typography } from '@mui/material';
import { LineChart } from '@mui/x-charts/LineChart';
import { useNavigate } from 'react-router-dom';
import type { TrendPoint, TrendsReport } from '../../api/generated/schema';
import { ANY_DIMENSION_MAX, type RubricDimension, dimensionsOf } from '../../shared/dimensions';
import { bucketLabel, fixed, plural } from './format';

export const STATS = ['mean', 'p10', 'p50', 'p90'] as const;
export type Stat = (typeof STATS)[number];
export const STAT_LABELS: Record<Stat, string> = { mean: 'Mean', p10: 'p10', p50: 'Median (p50)', p90: 'p90' };
/** Lines drawn at most when grouped (the groups with the most sessions); the rest are named below the chart. */
export const MAX_GROUPS = 8;
const UNKNOWN = 'unknown';

export interface Line {
  label: string;
  data: (number | null)[];
  /** The agent or alert type the line is of (a grouped chart); null for a statistic or the unknown group. */
  group: string | null;
}

/** Where a point leads: the scores of a bucket (by its start), of one group when the point is on a group's line. */
export type PointHref = (bucketStart: string, group: string | null) => string;

interface ChartProps {
  title: string;
  testId: string;
  buckets: string[];
  lines: Line[];
  max: number;
  unit: string;
  hrefOf: PointHref;
}

/** One MUI X line chart with a summary for screen readers (the last value of each line). */
function TrendChart({ title, testId, buckets, lines, max, unit, hrefOf }: ChartProps) {
  const navigate = useNavigate();
  const last = (line: Line) => [...line.data].reverse().find((v) => v !== null) ?? null;
  const summary = `${title}: ${lines.map((l) => `${l.label} ${fixed(last(l))}`).join(', ')} ${unit} in the latest bucket, on a scale of 0 to ${max}`;
  return (
    <Box data-testid={testId} data-axis-max={max} sx={{ minWidth: 0 }}>
      <Typography variant="subtitle1" component="h2">
        {title}
      </Typography>
      <Box role="img" aria-label={summary}>
        <LineChart
          height={300}
          skipAnimation
          // room for half of the last date's label, which is centred on the right edge, and labels small enough
          // that seven weeks fit a phone's width side by side ("Nov 23", not "N…" nor left out)
          margin={{ left: 0, right: 24, top: 8, bottom: 0 }}
          xAxis={[{ scaleType: 'point', data: buckets.map(bucketLabel), height: 28, tickLabelStyle: { fontSize: 11 } }]}
          yAxis={[{ min: 0, max, width: 36 }]}
          onMarkClick={(_, item) => {
            const bucket = buckets[item.dataIndex ?? -1];
            const line = lines.find((_, i) => `line-${i}` === item.seriesId);
            if (bucket) navigate(hrefOf(bucket, line?.group ?? null));
          }}
          sx={{ '& .MuiLineChart-mark': { cursor: 'pointer' } }}
          series={lines.map((line, i) => ({
            id: `line-${i}`,
            label: line.label,
            data: line.data,
            // every point is drawn: a click on one opens its scores
            showMark: true,
            valueFormatter: (v: number | null) => (v === null ? 'no scores' : `${fixed(v)} ${unit}`),
          }))}
        />
      </Box>
    </Box>
  );
}

/** The dimensions a report's charts draw and its chooser lists: every dimension of the rubric(s) in scope (a gap
 * where the answer has no mean), then any other key the answer carries a mean for (in words, bounded by the largest
 * maximum any rubric allows); a key with no mean anywhere that the rubric lacks is not drawn. */
export function trendDimensions(report: TrendsReport | undefined, rubric: readonly RubricDimension[] | undefined): RubricDimension[] {
  const measured = new Set<string>();
  for (const point of report?.points ?? []) {
    for (const [key, mean] of Object.entries(point.dimension_means)) if (mean !== null) measured.add(key);
  }
  const described = new Set((rubric ?? []).map((d) => d.key));
  return [...(rubric ?? []), ...dimensionsOf([...measured].filter((key) => !described.has(key)), undefined)];
}

/** Each group's points by bucket start ("" for the ungrouped series). */
function byGroup(points: TrendPoint[]): Map<string, Map<string, TrendPoint>> {
  const groups = new Map<string, Map<string, TrendPoint>>();
  for (const point of points) {
    const key = point.group ?? UNKNOWN;
    const line = groups.get(key) ?? new Map<string, TrendPoint>();
    line.set(point.bucket_start, point);
    groups.set(key, line);
  }
  return groups;
}

/** The trend charts of a report: the total and the dimensions, one line per statistic, or per group when grouped. */
export function TrendCharts({
  report,
  stat,
  dimension,
  rubric,
  hrefOf,
}: {
  report: TrendsReport;
  stat: Stat;
  /** The dimension drawn per group (grouped reports); one the charts lack draws the first. */
  dimension: string;
  /** The dimensions of the rubric(s) of the criteria in scope (labels, maxima); undefined where not known. */
  rubric: readonly RubricDimension[] | undefined;
  hrefOf: PointHref;
}) {
  const navigate = useNavigate();
  const buckets = [...new Set(report.points.map((p) => p.bucket_start))].sort();
  const sessions = report.points.reduce((sum, p) => sum + p.count, 0);
  const groups = byGroup(report.points);
  const along = (line: Map<string, TrendPoint>, read: (p: TrendPoint) => number | null) =>
    buckets.map((b) => {
      const point = line.get(b);
      return point ? read(point) : null;
    });
  const drawn = trendDimensions(report, rubric);
  const chosen = drawn.find((d) => d.key === dimension) ?? drawn[0];
  let totals: Line[];
  let dimensions: Line[];
  let omitted: string[] = [];
  if (report.group_by === 'none') {
    const line = groups.get(UNKNOWN) ?? new Map<string, TrendPoint>();
    totals = STATS.map((s) => ({ label: STAT_LABELS[s], data: along(line, (p) => p[s]), group: null }));
    dimensions = drawn.map((d) => ({
      label: d.label,
      data: along(line, (p) => p.dimension_means[d.key] ?? null),
      group: null,
    }));
  } else {
    const size = (line: Map<string, TrendPoint>) => [...line.values()].reduce((sum, p) => sum + p.count, 0);
    const ranked = [...groups.entries()].sort((a, b) => size(b[1]) - size(a[1]));
    const shown = ranked.slice(0, MAX_GROUPS);
    omitted = ranked.slice(MAX_GROUPS).map(([name]) => name);
    const group = (name: string) => (name === UNKNOWN ? null : name);
    totals = shown.map(([name, line]) => ({ label: name, data: along(line, (p) => p[stat]), group: group(name) }));
    dimensions = shown.map(([name, line]) => ({
      label: name,
      data: along(line, (p) => (chosen ? (p.dimension_means[chosen.key] ?? null) : null)),
      group: group(name),
    }));
  }
  const grouped = report.group_by !== 'none';
  const countOf = (bucket: string) => report.points.filter((p) => p.bucket_start === bucket).reduce((sum, p) => sum + p.count, 0);
  const per = report.bucket === 'week' ? 'week' : 'day';
  // each dimension's own maximum: the chosen one's per group, the largest of those drawn together
  const dimensionMax = grouped ? (chosen?.max_points ?? ANY_DIMENSION_MAX) : Math.max(...drawn.map((d) => d.max_points));
  return (
    <>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="trend-summary">
        {plural(sessions, 'session')} in total over {plural(buckets.length, per)}
        {grouped ? `, ${plural(groups.size, report.group_by === 'agent' ? 'agent' : 'alert type')}` : ''}
      </Typography>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' } }}>
        <TrendChart
          title={grouped ? `Total score: ${STAT_LABELS[stat].toLowerCase()} per ${report.group_by === 'agent' ? 'agent' : 'alert type'}` : 'Total score'}
          testId="trend-total"
          buckets={buckets}
          lines={totals}
          max={100}
          unit="points"
          hrefOf={hrefOf}
        />
        {chosen && (
          <TrendChart
            title={grouped ? `${chosen.label}: mean per ${report.group_by === 'agent' ? 'agent' : 'alert type'}` : 'Dimensions: mean'}
            testId="trend-dimensions"
            buckets={buckets}
            lines={dimensions}
            max={dimensionMax}
            unit="points"
            hrefOf={hrefOf}
          />
        )}
      </Box>
      {omitted.length > 0 && (
        <Typography variant="caption" color="text.secondary" component="p">
          Not drawn (fewer sessions): {omitted.join(', ')}
        </Typography>
      )}
      <Box sx={{ mt: 2 }}>
        <TextField
          select
          size="small"
          label={`Open the scores of a ${per}`}
          value=""
          onChange={(e) => navigate(hrefOf(e.target.value, null))}
          sx={{ minWidth: 240, maxWidth: '100%' }}
          data-testid="trend-bucket-scores"
        >
          {[...buckets].reverse().map((b) => (
            <MenuItem key={b} value={b}>
              {bucketLabel(b)} ({plural(countOf(b), 'session')})
            </MenuItem>
          ))}
        </TextField>
      </Box>
    </>
  );
}

import { Box } from '@mui/material';
import { SparkLineChart } from '@mui/x-charts/SparkLineChart';
import type { MissingToolTrendPoint } from '../../api/generated/schema';
import { bucketLabel } from './format';

/** A tool's sessions per period as a small line (oldest left); its numbers are in the accessible name. */
export function ToolSparkline({ tool, trend }: { tool: string; trend: MissingToolTrendPoint[] }) {
  const points = [...trend].sort((a, b) => a.bucket_start.localeCompare(b.bucket_start));
  const label = `${tool} per period: ${points.map((p) => `${bucketLabel(p.bucket_start)} ${p.count}`).join(', ')}`;
  return (
    // narrower on a phone, where the tool's name needs the room
    <Box role="img" aria-label={label} data-testid="tool-sparkline" sx={{ width: { xs: 72, sm: 120 }, height: 32 }}>
      <SparkLineChart
        data={points.map((p) => p.count)}
        xAxis={{ scaleType: 'point', data: points.map((p) => bucketLabel(p.bucket_start)) }}
        height={32}
        area
        showTooltip
        showHighlight
        skipAnimation
        valueFormatter={(v) => (v === null ? '' : `${v} sessions`)}
      />
    </Box>
  );
}

import { Box, Button } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';

export interface Bar {
  key: string;
  label: string;
  count: number;
  color: string;
  hint?: string;
}

const BAR_HEIGHT = 34;
const AXIS_HEIGHT = 46;

const sessions = (n: number) => `${n} session${n === 1 ? '' : 's'}`;

/** Session counts as a horizontal MUI X bar chart; a click on a bar, or on its button below the chart (the keyboard
 * and screen-reader way in, since the chart's bars are SVG), selects it. */
export function CountBarChart({
  bars,
  selected,
  onSelect,
  testId,
  title,
}: {
  bars: Bar[];
  selected: string | null;
  onSelect: (key: string) => void;
  testId: string;
  title: string;
}) {
  const labels = bars.map((b) => (b.hint ? `${b.label} (${b.hint})` : b.label));
  return (
    <Box>
      <Box role="img" aria-label={`${title}: ${bars.map((b, i) => `${labels[i]} ${sessions(b.count)}`).join(', ')}`}>
        <BarChart
          layout="horizontal"
          height={bars.length * BAR_HEIGHT + AXIS_HEIGHT}
          margin={{ left: 4, right: 16, top: 8, bottom: 4 }}
          yAxis={[{ scaleType: 'band', data: labels, width: 150, tickLabelStyle: { fontSize: 12 } }]}
          xAxis={[{ tickMinStep: 1, label: 'sessions', height: 56 }]}
          series={[
            {
              data: bars.map((b) => b.count),
              colorGetter: ({ dataIndex }) => bars[dataIndex]?.color ?? '#9e9e9e',
              valueFormatter: (v) => (v === null ? '' : sessions(v)),
            },
          ]}
          hideLegend
          skipAnimation
          onItemClick={(_, item) => {
            const bar = bars[item.dataIndex];
            if (bar && bar.count > 0) onSelect(bar.key);
          }}
          sx={{ '& .MuiBarChart-element': { cursor: 'pointer' } }}
        />
      </Box>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.75, mt: 1 }}>
        {bars.map((bar) => (
          <Button
            key={bar.key}
            size="small"
            variant={selected === bar.key ? 'contained' : 'outlined'}
            color="inherit"
            onClick={() => onSelect(bar.key)}
            disabled={bar.count === 0}
            data-testid={testId}
            data-key={bar.key}
            aria-pressed={selected === bar.key}
            aria-label={`${bar.label}: ${sessions(bar.count)}`}
            sx={{ textTransform: 'none', minWidth: 0, maxWidth: '100%' }}
            startIcon={<Box component="span" sx={{ width: 10, height: 10, borderRadius: '2px', bgcolor: bar.color, flexShrink: 0 }} />}
          >
            <Box component="span" sx={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
              {bar.label} · {bar.count}
            </Box>
          </Button>
        ))}
      </Box>
    </Box>
  );
}

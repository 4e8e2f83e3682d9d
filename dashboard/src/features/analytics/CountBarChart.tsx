import { Box, Button } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { Link as RouterLink, useNavigate } from 'react-router-dom';

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

/** Session counts as a horizontal MUI X bar chart; a click on a bar, or on its link below the chart (the keyboard
 * and screen-reader way in, since the chart's bars are SVG), opens the page `hrefOf` gives for it (the scores
 * behind the bar). */
export function CountBarChart({
  bars,
  hrefOf,
  testId,
  title,
}: {
  bars: Bar[];
  hrefOf: (key: string) => string;
  testId: string;
  title: string;
}) {
  const navigate = useNavigate();
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
            if (bar && bar.count > 0) navigate(hrefOf(bar.key));
          }}
          sx={{ '& .MuiBarChart-element': { cursor: 'pointer' } }}
        />
      </Box>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.75, mt: 1 }}>
        {bars.map((bar) => {
          const look = {
            size: 'small',
            variant: 'outlined',
            color: 'inherit',
            'data-testid': testId,
            'data-key': bar.key,
            sx: { textTransform: 'none', minWidth: 0, maxWidth: '100%' },
            startIcon: <Box component="span" sx={{ width: 10, height: 10, borderRadius: '2px', bgcolor: bar.color, flexShrink: 0 }} />,
            children: (
              <Box component="span" sx={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                {bar.label} · {bar.count}
              </Box>
            ),
          } as const;
          // an empty bar has no scores to open
          return bar.count === 0 ? (
            <Button key={bar.key} {...look} disabled />
          ) : (
            <Button key={bar.key} {...look} component={RouterLink} to={hrefOf(bar.key)} aria-label={`${bar.label} · ${sessions(bar.count)}: open their scores`} />
          );
        })}
      </Box>
    </Box>
  );
}

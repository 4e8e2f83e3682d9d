import { Box, ButtonBase, Typography } from '@mui/material';

export interface Bar {
  key: string;
  label: string;
  count: number;
  color: string;
  hint?: string;
}

/** A horizontal bar chart whose bars are buttons (each opens the sessions behind it). */
export function BarList({
  bars,
  selected,
  onSelect,
  testId,
}: {
  bars: Bar[];
  selected: string | null;
  onSelect: (key: string) => void;
  testId: string;
}) {
  const max = Math.max(1, ...bars.map((b) => b.count));
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
      {bars.map((bar) => (
        <ButtonBase
          key={bar.key}
          onClick={() => onSelect(bar.key)}
          disabled={bar.count === 0}
          data-testid={testId}
          data-key={bar.key}
          aria-pressed={selected === bar.key}
          aria-label={`${bar.label}: ${bar.count} session${bar.count === 1 ? '' : 's'}`}
          sx={{
            display: 'grid',
            gridTemplateColumns: { xs: '1fr', sm: 'minmax(120px, 220px) 1fr' },
            gap: { xs: 0.25, sm: 1.5 },
            alignItems: 'center',
            textAlign: 'left',
            borderRadius: 1,
            p: 0.5,
            outline: selected === bar.key ? '2px solid' : 'none',
            outlineColor: 'primary.main',
            '&:hover': { bgcolor: 'action.hover' },
          }}
        >
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="body2" noWrap title={bar.label}>
              {bar.label}
            </Typography>
            {bar.hint && (
              <Typography variant="caption" color="text.secondary">
                {bar.hint}
              </Typography>
            )}
          </Box>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Box
              sx={{
                height: 22,
                width: `${(100 * bar.count) / max}%`,
                minWidth: bar.count ? 6 : 2,
                bgcolor: bar.color,
                borderRadius: 0.5,
                transition: 'width 200ms',
              }}
            />
            <Typography variant="body2" fontWeight={600}>
              {bar.count}
            </Typography>
          </Box>
        </ButtonBase>
      ))}
    </Box>
  );
}

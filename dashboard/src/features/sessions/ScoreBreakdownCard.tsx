import { Box, Card, CardContent, LinearProgress, Typography } from '@mui/material';
import { DIMENSIONS, DIMENSION_MAX } from '../../shared/dimensions';

/** The four dimensions, each out of 25, as bars. */
export function ScoreBreakdownCard({ breakdown }: { breakdown: Record<string, number> }) {
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Breakdown
        </Typography>
        {DIMENSIONS.map(({ key, label }) => {
          const value = breakdown[key] ?? 0;
          return (
            <Box key={key} sx={{ mb: 1.5 }} data-testid="breakdown-bar" data-dimension={key}>
              <Box sx={{ display: 'flex', justifyContent: 'space-between' }}>
                <Typography variant="body2">{label}</Typography>
                <Typography variant="body2" fontWeight={600}>
                  {value}/{DIMENSION_MAX}
                </Typography>
              </Box>
              <LinearProgress
                variant="determinate"
                value={(100 * value) / DIMENSION_MAX}
                aria-label={`${label} ${value} of ${DIMENSION_MAX}`}
                sx={{ height: 10, borderRadius: 5 }}
              />
            </Box>
          );
        })}
      </CardContent>
    </Card>
  );
}

import { Box, Card, CardContent, Typography } from '@mui/material';
import type { AlternativeApproach } from '../../api/generated/schema';

/** Better ways to investigate, each with its ordered steps. */
export function AlternativeApproachesCard({ approaches }: { approaches: AlternativeApproach[] }) {
  return (
    <Card variant="outlined" data-testid="approaches-card">
      <CardContent>
        <Typography variant="h6" component="h2">Alternative approaches ({approaches.length})</Typography>
        {approaches.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            The judge suggested no alternative approach.
          </Typography>
        ) : (
          approaches.map((approach, i) => (
            <Box key={`${approach.name}-${i}`} sx={{ mt: 1.5 }} data-testid="approach">
              <Typography variant="subtitle1" fontWeight={600}>
                {approach.name}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {approach.description}
              </Typography>
              <Box component="ol" sx={{ my: 0.5, pl: 3 }}>
                {approach.steps.map((step, n) => (
                  <Typography component="li" variant="body2" key={n}>
                    {step}
                  </Typography>
                ))}
              </Box>
            </Box>
          ))
        )}
      </CardContent>
    </Card>
  );
}

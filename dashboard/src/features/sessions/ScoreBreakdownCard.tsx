import { Alert, Box, Card, CardContent, Chip, LinearProgress, Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import type { SessionScore } from '../../api/generated/schema';

type Dimension = { key: string; label: string; points: number; max_points: number };

/** A failure tag's text and outline: a dark orange readable on white (6.0:1); the theme's warning orange (#ed6c02)
 * is 3.0:1, below WCAG AA for the chip's small text (axe flagged it on a score's page). */
const TAG_COLOUR = '#a84300';

/** A score's dimensions as bars, each out of its own maximum; the ceiling that capped the total and why; the
 * failure tags as chips opening the sessions given the same tag. */
export function ScoreBreakdownCard({
  dimensions,
  ceiling,
  failureTags,
  rubric,
}: {
  dimensions: Dimension[];
  ceiling?: SessionScore['ceiling'];
  failureTags?: string[];
  rubric?: string | null;
}) {
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Breakdown
        </Typography>
        {rubric && (
          <Typography variant="caption" color="text.secondary" component="p" sx={{ mb: 1 }} data-testid="breakdown-rubric">
            Rubric: {rubric}
          </Typography>
        )}
        {dimensions.map(({ key, label, points, max_points }) => (
          <Box key={key} sx={{ mb: 1.5 }} data-testid="breakdown-bar" data-dimension={key}>
            <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 1 }}>
              <Typography variant="body2">{label}</Typography>
              <Typography variant="body2" fontWeight={600}>
                {points}/{max_points}
              </Typography>
            </Box>
            <LinearProgress
              variant="determinate"
              value={(100 * points) / max_points}
              aria-label={`${label} ${points} of ${max_points}`}
              sx={{ height: 10, borderRadius: 5 }}
            />
          </Box>
        ))}
        {ceiling && (
          <Alert severity="info" variant="outlined" sx={{ mt: 1 }} data-testid="breakdown-ceiling">
            {ceiling.label}: <strong>{ceiling.value.replace(/_/g, ' ')}</strong>
            {ceiling.description ? ` (${ceiling.description})` : ''}, which allows a total of {ceiling.min_score}-{ceiling.max_score}.
          </Alert>
        )}
        {failureTags && failureTags.length > 0 && (
          <Box sx={{ mt: 1.5 }}>
            <Typography variant="subtitle2" component="h3" gutterBottom>
              Failure tags
            </Typography>
            <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
              {failureTags.map((tag) => (
                <Chip
                  key={tag}
                  size="small"
                  color="warning"
                  variant="outlined"
                  label={tag.replace(/_/g, ' ')}
                  component={RouterLink}
                  to={`/analytics/failure-tags/${encodeURIComponent(tag)}`}
                  clickable
                  sx={{ color: TAG_COLOUR, borderColor: TAG_COLOUR }}
                  data-testid="failure-tag"
                  aria-label={`Sessions tagged ${tag.replace(/_/g, ' ')}`}
                />
              ))}
            </Stack>
          </Box>
        )}
      </CardContent>
    </Card>
  );
}

/** The card for a completed score: its rubric's dimensions, ceiling and tags. */
export function ScoreBreakdown({ score }: { score: SessionScore }) {
  if (!score.dimensions || score.dimensions.length === 0) return null;
  return (
    <ScoreBreakdownCard
      dimensions={score.dimensions}
      ceiling={score.ceiling}
      failureTags={score.failure_tags}
      rubric={score.rubric}
    />
  );
}

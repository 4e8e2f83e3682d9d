import { Chip, CircularProgress, Tooltip, Typography } from '@mui/material';
import { isActive } from '../scoreStatus';
import type { ScoreStatus } from '../../api/generated/schema';
import { bandColours, useBandOf } from '../scoreBands';

export interface ScoreBadgeProps {
  /** The latest attempt; null or undefined when the session was never scored. */
  score?: { status: ScoreStatus; total_score: number | null; is_current_criteria?: boolean } | null;
  size?: 'small' | 'medium';
}

/** A session's score at a glance: the number in its band's colour, or Not Scored / Scoring… / Cancelled / Failed. The band comes
 * from the API's band definitions; until they are loaded the number shows in a neutral colour. */
export function ScoreBadge({ score, size = 'small' }: ScoreBadgeProps) {
  const band = useBandOf(score?.status === 'completed' ? score.total_score : null);
  if (!score) {
    return <Chip size={size} variant="outlined" label="Not Scored" data-testid="score-badge" data-state="unscored" />;
  }
  if (isActive(score.status)) {
    return (
      <Chip
        size={size}
        variant="outlined"
        color="primary"
        icon={<CircularProgress size={12} aria-hidden />}
        label="Scoring…"
        data-testid="score-badge"
        data-state="scoring"
      />
    );
  }
  if (score.status === 'cancelled') {
    // cancelled with its run before a scorer picked it up: never judged, which is not a failure
    return <Chip size={size} variant="outlined" label="Cancelled" data-testid="score-badge" data-state="cancelled" />;
  }
  if (score.status === 'failed' || score.total_score === null) {
    return (
      <Chip size={size} variant="outlined" color="error" label="Failed" data-testid="score-badge" data-state="failed" />
    );
  }
  const colours = bandColours(band?.band);
  // Newer or older: a criteria other than the one in force (its name is on the session's page).
  const other = score.is_current_criteria === false;
  const title = `${score.total_score}/100${band ? ` · ${band.label}` : ''}${other ? ' · scored under other criteria than the current' : ''}`;
  return (
    <Tooltip title={title}>
      <Chip
        size={size}
        label={`${score.total_score}${other ? '*' : ''}`}
        aria-label={title}
        data-testid="score-badge"
        data-state="scored"
        data-band={band?.band}
        // no fade: MUI's Chip animates its background while the text colour changes at once, so a band arriving
        // after the first paint showed the band's text on the neutral background (2:1) for the length of the fade
        sx={{ bgcolor: colours.background, color: colours.text, fontWeight: 700, minWidth: 48, transition: 'none' }}
      />
    </Tooltip>
  );
}

const LATER: Record<ScoreStatus, string | null> = {
  pending: 'Re-score queued',
  in_progress: 'Re-scoring…',
  failed: 'Latest attempt failed',
  cancelled: 'Latest attempt cancelled',
  completed: null,
};

/** The state of an attempt made after the score shown that did not complete (cancelled with its run, failed, still
 * going): said beside the score, which stays the session's. Nothing when the score is the latest attempt. */
export function LaterAttempt({ status }: { status?: ScoreStatus | null }) {
  const text = status ? LATER[status] : null;
  if (!text) return null;
  return (
    <Typography variant="caption" color="text.secondary" component="div" data-testid="later-attempt" data-state={status}>
      {text}
    </Typography>
  );
}

import { Chip, CircularProgress, Tooltip } from '@mui/material';
import type { ScoreStatus } from '../api/types';
import { bandFor } from '../scoreBands';

export interface ScoreBadgeProps {
  /** The latest attempt; null or undefined when the session was never scored. */
  score?: { status: ScoreStatus; total_score: number | null; is_current_criteria?: boolean } | null;
  size?: 'small' | 'medium';
}

/** A session's score at a glance: the number in its band's colour, or Not Scored / Scoring… / Failed. */
export function ScoreBadge({ score, size = 'small' }: ScoreBadgeProps) {
  if (!score) {
    return <Chip size={size} variant="outlined" label="Not Scored" data-testid="score-badge" data-state="unscored" />;
  }
  if (score.status === 'pending' || score.status === 'in_progress') {
    return (
      <Chip
        size={size}
        variant="outlined"
        color="info"
        icon={<CircularProgress size={12} aria-hidden />}
        label="Scoring…"
        data-testid="score-badge"
        data-state="scoring"
      />
    );
  }
  if (score.status === 'failed' || score.total_score === null) {
    return (
      <Chip size={size} variant="outlined" color="error" label="Failed" data-testid="score-badge" data-state="failed" />
    );
  }
  const band = bandFor(score.total_score);
  const older = score.is_current_criteria === false;
  const title = `${score.total_score}/100 · ${band.label}${older ? ' · scored with older criteria' : ''}`;
  return (
    <Tooltip title={title}>
      <Chip
        size={size}
        label={`${score.total_score}${older ? '*' : ''}`}
        aria-label={title}
        data-testid="score-badge"
        data-state="scored"
        data-band={band.band}
        sx={{ bgcolor: band.background, color: band.text, fontWeight: 700, minWidth: 48 }}
      />
    </Tooltip>
  );
}

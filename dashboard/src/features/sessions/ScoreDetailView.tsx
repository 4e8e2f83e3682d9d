import {
  Alert,
  Box,
  Card,
  CardContent,
  Chip,
  Link,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import type { SessionScore } from '../../api/generated/schema';
import { useBandOf } from '../../shared/scoreBands';
import { AlternativeApproachesCard } from './AlternativeApproachesCard';
import { JsonBlock } from '../../shared/components/JsonBlock';
import { JuryCard } from './JuryCard';
import { Markdown } from '../../shared/components/Markdown';
import { MissingToolsCard } from './MissingToolsCard';
import { OutcomeChip } from '../../shared/components/OutcomeChip';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { ScoreBreakdown } from './ScoreBreakdownCard';
import { formatDateTime } from '../../shared/time';

export interface ScoreDetailViewProps {
  score: SessionScore;
  /** The original alert and the agent's final analysis (from the session), when known. */
  alert?: Record<string, unknown> | null;
  finalAnalysis?: string | null;
  /** Every attempt, newest first (the one shown included): the others are listed below it. */
  history?: SessionScore[];
  /** The name of a criteria hash (the stored criteria's); the hash's first digits by default. */
  criteriaName?: (criteriaHash: string) => string;
}

const when = formatDateTime;
const tokens = (n: number | null) => (n === null ? '–' : n.toLocaleString());
const shortHash = (criteriaHash: string) => `#${criteriaHash.slice(0, 8)}`;

/** The page showing two attempts of a session side by side. */
export const compareHref = (sessionId: string, a: string, b: string) =>
  `/sessions/${encodeURIComponent(sessionId)}/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`;

/** Columns shown from the md breakpoint up (folded away on a phone). */
const wide = { display: { xs: 'none', md: 'table-cell' } };
const narrow = { display: { md: 'none' } };

/** The judge's critique of one session, the verdict first: total and band (with the outcome), breakdown and reasoning,
 * the jurors when a jury judged, missing tools and approaches; then the criteria and the judge's cost, the alert and
 * final analysis, other attempts. */
export function ScoreDetailView({ score, alert, finalAnalysis, history = [], criteriaName = shortHash }: ScoreDetailViewProps) {
  const earlier = history.filter((h) => h.score_id !== score.score_id);
  const band = useBandOf(score.total_score);
  return (
    <Stack spacing={2} data-testid="score-detail">
      {score.status === 'completed' && score.total_score !== null ? (
        <Card variant="outlined">
          <CardContent sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center' }}>
            <Typography variant="h3" component="div" data-testid="total-score">
              {score.total_score}
              <Typography component="span" variant="h6" color="text.secondary">
                /100
              </Typography>
            </Typography>
            <Box>
              <ScoreBadge score={score} size="medium" />
              <Typography variant="body2" sx={{ mt: 0.5 }}>
                {band ? `${band.label} · ` : ''}scored {when(score.scored_at)} · by {score.scored_triggered_by}
              </Typography>
            </Box>
            {score.outcome && (
              <Box data-testid="score-outcome">
                <Typography variant="body2" color="text.secondary">
                  Root cause
                </Typography>
                <OutcomeChip outcome={score.outcome} reason={score.outcome_reason} referenceSource={score.reference_source} />
                {score.outcome !== 'no_reference' && score.outcome_reason && (
                  <Typography variant="body2" sx={{ mt: 0.5, maxWidth: 560 }}>
                    {score.outcome_reason}
                  </Typography>
                )}
              </Box>
            )}
          </CardContent>
        </Card>
      ) : (
        <Alert severity={score.status === 'failed' ? 'error' : 'info'} data-testid="score-status">
          {score.status === 'failed'
            ? `Scoring failed: ${score.error_message ?? 'no reason was recorded'}`
            : `Scoring is ${score.status === 'pending' ? 'queued' : 'in progress'} (requested ${when(score.requested_at)}).`}
        </Alert>
      )}

      {score.score_breakdown && (
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'minmax(260px, 1fr) 2fr' } }}>
          <ScoreBreakdown score={score} />
          <Card variant="outlined">
            <CardContent>
              <Typography variant="h6" component="h2">Reasoning</Typography>
              <Markdown text={score.score_reasoning ?? ''} />
            </CardContent>
          </Card>
        </Box>
      )}

      {score.status === 'completed' && score.jury && <JuryCard jury={score.jury} total={score.total_score} />}

      {score.status === 'completed' && (
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <MissingToolsCard tools={score.missing_tools} />
          <AlternativeApproachesCard approaches={score.alternative_approaches} />
        </Box>
      )}

      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'center' }}>
        <Typography variant="body2">Criteria</Typography>
        <Chip size="small" label={criteriaName(score.criteria_hash)} title={score.criteria_hash} data-testid="score-criteria" />
        {score.is_current_criteria ? (
          <Chip size="small" color="success" variant="outlined" label="current" />
        ) : (
          <Chip size="small" variant="outlined" label="not the current criteria" sx={{ borderColor: 'warning.main' }} />
        )}
        {score.judge.provider && (
          <Typography variant="body2" color="text.secondary" data-testid="judge-info">
            Judge {score.judge.provider}
            {score.judge.model ? ` / ${score.judge.model}` : ''} · tokens in {tokens(score.judge.input_tokens)}, out{' '}
            {tokens(score.judge.output_tokens)}
            {score.judge.cache_read_tokens ? `, cache read ${tokens(score.judge.cache_read_tokens)}` : ''}
            {score.judge.latency_ms !== null ? ` · ${(score.judge.latency_ms / 1000).toFixed(1)} s` : ''}
            {score.judge.prompt_compacted ? ' · session compacted to fit' : ''}
          </Typography>
        )}
      </Box>

      {(alert || finalAnalysis) && (
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          {alert && (
            <Card variant="outlined">
              <CardContent>
                <Typography variant="h6" component="h2">Original alert</Typography>
                <JsonBlock value={alert} />
              </CardContent>
            </Card>
          )}
          {finalAnalysis && (
            <Card variant="outlined">
              <CardContent>
                <Typography variant="h6" component="h2">Final analysis</Typography>
                <Markdown text={finalAnalysis} />
              </CardContent>
            </Card>
          )}
        </Box>
      )}

      <Card variant="outlined">
        <CardContent>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'baseline' }}>
            <Typography variant="h6" component="h2">
              Other attempts ({earlier.length})
            </Typography>
            {earlier.length > 0 && (
              <Link component={RouterLink} to={compareHref(score.session_id, score.score_id, earlier[0].score_id)} variant="body2">
                Compare attempts side by side
              </Link>
            )}
          </Box>
          {earlier.length === 0 ? (
            <Typography variant="body2" color="text.secondary">
              This is the only attempt.
            </Typography>
          ) : (
            <TableContainer>
              {/* fixed layout, details folded away on a phone: the time and the score always fit without scrolling */}
              <Table size="small" sx={{ tableLayout: 'fixed' }}>
                <TableHead>
                  <TableRow>
                    <TableCell>Requested</TableCell>
                    <TableCell sx={{ width: 112 }}>Score</TableCell>
                    <TableCell sx={wide}>Criteria</TableCell>
                    <TableCell sx={wide}>By</TableCell>
                    <TableCell sx={wide}>Note</TableCell>
                    <TableCell sx={{ width: { xs: 82, md: 100 } }}>Compare</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {earlier.map((attempt) => (
                    <TableRow key={attempt.score_id} data-testid="earlier-attempt">
                      <TableCell>
                        {when(attempt.requested_at)}
                        <Typography variant="caption" color="text.secondary" component="div" sx={narrow}>
                          {criteriaName(attempt.criteria_hash)}
                          {attempt.is_current_criteria ? ' (current)' : ''}
                        </Typography>
                      </TableCell>
                      <TableCell>
                        <ScoreBadge score={attempt} />
                      </TableCell>
                      <TableCell title={attempt.criteria_hash} sx={{ ...wide, overflowWrap: 'anywhere' }}>
                        {criteriaName(attempt.criteria_hash)}
                        {attempt.is_current_criteria ? ' (current)' : ''}
                      </TableCell>
                      <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }}>{attempt.scored_triggered_by}</TableCell>
                      <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }}>{attempt.error_message ?? ''}</TableCell>
                      <TableCell>
                        <Link
                          component={RouterLink}
                          to={compareHref(score.session_id, score.score_id, attempt.score_id)}
                          aria-label={`Compare the attempt of ${when(attempt.requested_at)} with the one shown`}
                        >
                          Compare
                        </Link>
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          )}
        </CardContent>
      </Card>
    </Stack>
  );
}

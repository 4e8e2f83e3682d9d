import { Box, Card, CardContent, Link, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { RunSummary } from '../../api/generated/schema';
import { shortSessionId } from '../../shared/components/SessionId';
import { ErrorState } from '../../shared/components/StateViews';
import { bandColours, useScoreBands } from '../../shared/scoreBands';
import { useRunSummary } from './queries';

const signed = (change: number): string => (change > 0 ? `+${change}` : `−${Math.abs(change)}`);

/** How the run's scores moved against each session's previous score, in one sentence. */
export function describeMoves(summary: Pick<RunSummary, 'improved' | 'worsened' | 'unchanged' | 'first_scores'>): string {
  const parts = [
    summary.improved && `${summary.improved} improved`,
    summary.worsened && `${summary.worsened} got worse`,
    summary.unchanged && `${summary.unchanged} unchanged`,
    summary.first_scores && `${summary.first_scores} scored for the first time`,
  ].filter(Boolean);
  return parts.length ? `Against each session's previous score: ${parts.join(', ')}.` : '';
}

/** The run's scores at a glance: how many fell in each band (a bar and its legend), the average, how they moved
 * against each session's previous score, and the largest movers. Read again whenever the run's counts change, so it
 * agrees with the progress above it and the attempts below. */
export function RunSummaryCard({ runId, version }: { runId: string; version: string }) {
  const { data: summary, error } = useRunSummary(runId, version);
  const { data: bands } = useScoreBands();
  const label = (band: string) => bands?.find((b) => b.band === band)?.label ?? band.replaceAll('_', ' ');
  if (error && !summary) return <ErrorState message={`Could not load the run's summary: ${errorMessage(error)}`} />;
  if (!summary) return null;
  const filled = summary.bands.filter((b) => b.sessions > 0);
  const legend = filled.map((b) => `${label(b.band)} ${b.sessions}`).join(', ');

  return (
    <Card variant="outlined" sx={{ mb: 2 }} component="section" aria-labelledby="run-summary-title" data-testid="run-summary">
      <CardContent>
        <Typography variant="h6" component="h2" id="run-summary-title">
          Scores of this run
        </Typography>
        {summary.completed === 0 ? (
          <Typography variant="body2" color="text.secondary">
            No completed scores yet.
          </Typography>
        ) : (
          <>
            <Typography variant="body2" data-testid="run-summary-average">
              {summary.completed} scored, average {summary.average_score}.
            </Typography>
            <Box
              role="img"
              aria-label={`Scores by band: ${legend}`}
              sx={{ display: 'flex', height: 12, borderRadius: 1, overflow: 'hidden', my: 1 }}
            >
              {filled.map((b) => (
                <Box
                  key={b.band}
                  data-testid="run-summary-band"
                  data-band={b.band}
                  data-sessions={b.sessions}
                  sx={{ width: `${(100 * b.sessions) / summary.completed}%`, bgcolor: bandColours(b.band).background }}
                />
              ))}
            </Box>
            <Typography variant="body2" color="text.secondary" data-testid="run-summary-legend">
              {legend}
            </Typography>
            <Typography variant="body2" sx={{ mt: 1 }} data-testid="run-summary-moves">
              {describeMoves(summary)}
            </Typography>
            {summary.movers.length > 0 && (
              <Table size="small" aria-label="largest changes" sx={{ mt: 1, maxWidth: 560 }}>
                <TableHead>
                  <TableRow>
                    <TableCell>Session</TableCell>
                    <TableCell>Before</TableCell>
                    <TableCell>Now</TableCell>
                    <TableCell>Change</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {summary.movers.map((m) => (
                    <TableRow key={m.session_id} data-testid="run-mover" data-session-id={m.session_id}>
                      <TableCell>
                        <Link component={RouterLink} to={`/sessions/${encodeURIComponent(m.session_id)}`} title={m.session_id}>
                          {shortSessionId(m.session_id)}
                        </Link>
                      </TableCell>
                      <TableCell title={m.same_criteria ? undefined : 'scored under other criteria'}>
                        {m.previous_score}
                        {m.same_criteria ? '' : '*'} ({label(m.previous_band)})
                      </TableCell>
                      <TableCell>
                        {m.total_score} ({label(m.band)})
                      </TableCell>
                      <TableCell sx={{ fontWeight: 500, color: m.change > 0 ? 'success.dark' : 'error.dark' }}>{signed(m.change)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
            {summary.movers.some((m) => !m.same_criteria) && (
              <Typography variant="caption" color="text.secondary">
                * the previous score was made under other criteria.
              </Typography>
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}

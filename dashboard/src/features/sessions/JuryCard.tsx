import {
  Card,
  CardContent,
  Chip,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { SessionScore } from '../../api/generated/schema';

type Jury = NonNullable<SessionScore['jury']>;
type Juror = Jury['jurors'][number];

/** What became of one juror: its verdict's total, or why it gave none. */
function JurorStatus({ juror }: { juror: Juror }) {
  if (juror.excluded) return <Typography variant="body2" color="text.secondary">{juror.excluded}</Typography>;
  if (juror.failed)
    return (
      <Typography variant="body2" color="error" sx={{ overflowWrap: 'anywhere' }}>
        failed: {juror.failed}
      </Typography>
    );
  return <Typography variant="body2">verdict given</Typography>;
}

/** A jury's score: each juror's total (or why it failed or sat out), the spread of the totals and the quorum the
 * median needed. The stored total is the verdicts' median. */
export function JuryCard({ jury, total }: { jury: Jury; total: number | null }) {
  const { min, max, stdev } = jury.total_spread;
  const failed = jury.jurors.filter((j) => j.failed).length;
  return (
    <Card variant="outlined" data-testid="jury">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Jury
        </Typography>
        <Typography variant="body2" sx={{ mb: 1 }} data-testid="jury-summary">
          {total !== null ? `Median ${total} of ${jury.verdicts} verdicts` : `${jury.verdicts} verdicts`} (quorum{' '}
          {jury.quorum}) · totals {min}–{max}, spread {max - min} points, standard deviation {stdev.toFixed(1)}
          {failed > 0 ? ` · ${failed} of ${jury.jurors.length} jurors failed` : ''}
        </Typography>
        <TableContainer>
          <Table size="small" aria-label="Jurors">
            <TableHead>
              <TableRow>
                <TableCell>Juror</TableCell>
                <TableCell>Model</TableCell>
                <TableCell align="right">Total</TableCell>
                <TableCell>Verdict</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {jury.jurors.map((juror, i) => (
                <TableRow key={i} data-testid="juror" data-provider={juror.provider}>
                  <TableCell>
                    {juror.name ?? juror.provider}
                    {juror.name && juror.name !== juror.provider && (
                      <Typography variant="caption" color="text.secondary" component="div">
                        {juror.provider}
                      </Typography>
                    )}
                  </TableCell>
                  <TableCell sx={{ overflowWrap: 'anywhere' }}>
                    {juror.model}
                    {juror.same_family_as_agent && (
                      <Chip
                        size="small"
                        variant="outlined"
                        label="agent's family"
                        title="Of the agent's model family: a judge may favour its own family's answers"
                        sx={{ ml: 1, borderColor: 'warning.main' }}
                      />
                    )}
                  </TableCell>
                  <TableCell align="right" data-testid="juror-total">
                    {juror.total ?? '–'}
                  </TableCell>
                  <TableCell>
                    <JurorStatus juror={juror} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      </CardContent>
    </Card>
  );
}

import { Table, TableBody, TableCell, TableContainer, TableHead, TableRow } from '@mui/material';
import { useScoreBands } from '../api/queries';

/** The 5x5 band transition matrix as a table whose cells are shaded by their count (a heatmap). Rows: the band under
 * the base criteria; columns: under the candidate; the diagonal did not change band. */
export function BandTransitions({ bands, matrix }: { bands: string[]; matrix: number[][] }) {
  const { data: definitions = [] } = useScoreBands();
  const label = (band: string) => definitions.find((d) => d.band === band)?.label ?? band;
  const max = Math.max(1, ...matrix.flat());
  return (
    <TableContainer>
      <Table size="small" aria-label="Band transitions, base (rows) to candidate (columns)" sx={{ '& td, & th': { px: 0.75, textAlign: 'center' } }}>
        <TableHead>
          <TableRow>
            <TableCell component="th" scope="col" sx={{ textAlign: 'left !important' }}>
              base ↓ / candidate →
            </TableCell>
            {bands.map((band) => (
              <TableCell key={band} component="th" scope="col">
                {label(band)}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {bands.map((from, i) => (
            <TableRow key={from}>
              <TableCell component="th" scope="row" sx={{ textAlign: 'left !important' }}>
                {label(from)}
              </TableCell>
              {bands.map((to, j) => {
                const count = matrix[i]?.[j] ?? 0;
                const strength = count / max;
                return (
                  <TableCell
                    key={to}
                    data-testid="transition-cell"
                    data-from={from}
                    data-to={to}
                    sx={{
                      // Blue shading; the text turns white on the darker half so it keeps its contrast.
                      bgcolor: count ? `rgba(25, 118, 210, ${0.08 + 0.82 * strength})` : undefined,
                      color: strength > 0.5 ? '#fff' : undefined,
                      fontWeight: i === j ? 700 : 400,
                    }}
                  >
                    {count}
                  </TableCell>
                );
              })}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

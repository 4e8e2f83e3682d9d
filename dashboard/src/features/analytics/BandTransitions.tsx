import { Link, Table, TableBody, TableCell, TableContainer, TableHead, TableRow } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import { useScoreBands } from '../../shared/scoreBands';

const HEAT = [13, 71, 161]; // #0d47a1

/** A cell's shade for a share (0-1) of the largest count, and the text colour (black or white, whichever contrasts
 * more: one of the two always reaches WCAG's 4.5:1). */
export function heat(strength: number): { background: string; color: string } {
  const alpha = 0.06 + 0.9 * strength;
  const rgb = HEAT.map((c) => Math.round(255 + (c - 255) * alpha));
  const linear = rgb.map((c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  const onWhite = 1.05 / (luminance + 0.05);
  const onBlack = (luminance + 0.05) / 0.05;
  return { background: `rgb(${rgb.join(', ')})`, color: onWhite > onBlack ? '#fff' : '#000' };
}

/** The 5x5 band transition matrix as a table whose cells are shaded by their count (a heatmap). Rows: the band under
 * the base criteria; columns: under the candidate; the diagonal did not change band. A count links to the scores of
 * its sessions (`hrefOf`). */
export function BandTransitions({
  bands,
  matrix,
  hrefOf,
}: {
  bands: string[];
  matrix: number[][];
  hrefOf: (from: string, to: string) => string;
}) {
  const { data: definitions = [] } = useScoreBands();
  const label = (band: string) => definitions.find((d) => d.band === band)?.label ?? band;
  const max = Math.max(1, ...matrix.flat());
  return (
    <TableContainer>
      <Table
        size="small"
        aria-label="Band transitions, base (rows) to candidate (columns)"
        // names wrap between words ("Near-" / "perfect") and never mid-word: a column is as wide as its longest word
        sx={{
          '& td, & th': { px: { xs: 0.25, sm: 0.75 }, textAlign: 'center', fontSize: { xs: '0.6875rem', sm: '0.875rem' } },
          '& th': { overflowWrap: 'normal', wordBreak: 'normal', hyphens: 'manual' },
        }}
      >
        <TableHead>
          <TableRow>
            <TableCell component="th" scope="col" sx={{ textAlign: 'left !important' }}>
              base ↓ candidate →
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
                const shade = count ? heat(count / max) : null;
                return (
                  <TableCell
                    key={to}
                    data-testid="transition-cell"
                    data-from={from}
                    data-to={to}
                    sx={{ bgcolor: shade?.background, color: shade?.color, fontWeight: i === j ? 700 : 400 }}
                  >
                    {count ? (
                      <Link
                        component={RouterLink}
                        to={hrefOf(from, to)}
                        color="inherit"
                        aria-label={`${count} from ${label(from)} to ${label(to)}: open their scores`}
                      >
                        {count}
                      </Link>
                    ) : (
                      count
                    )}
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

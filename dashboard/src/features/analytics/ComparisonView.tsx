import { Box, Card, CardContent, Link, List, ListItem, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import type { ScatterItemIdentifier } from '@mui/x-charts/models';
import { ScatterChart } from '@mui/x-charts/ScatterChart';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import type { CriteriaComparison, Mover } from '../../api/generated/schema';
import { dimensionLabel } from '../../shared/dimensions';
import { EmptyState } from '../../shared/components/StateViews';
import { scoresHref } from '../scores/urlState';
import { BandTransitions } from './BandTransitions';
import { fixed, plural, signed } from './format';

const short = (hash: string) => hash.slice(0, 12);

/** A session's scores under every criteria (the base's and the candidate's side by side): where a point leads. */
const bothScoresOf = (sessionId: string) => scoresHref({ criteria: 'any', latestOnly: false, sessionId });

/** Base against candidate totals, one point per compared session (the API's fixed sample of at most 2,000); a click
 * on a point opens that session's scores under both. */
function TotalsScatter({ comparison }: { comparison: CriteriaComparison }) {
  const navigate = useNavigate();
  const points = comparison.points;
  return (
    <Box data-testid="comparison-scatter">
      <Typography variant="subtitle1" component="h3">
        Totals: base against candidate
      </Typography>
      <Typography variant="caption" color="text.secondary">
        {points.length < comparison.n ? `${points.length} of ${comparison.n} sessions (a fixed sample). ` : ''}
        Above the diagonal the candidate scores higher. Click a point for its session's scores.
      </Typography>
      <Box role="img" aria-label={`Scatter of ${plural(points.length, 'session')}: base total against candidate total`}>
        <ScatterChart
          height={320}
          skipAnimation
          hideLegend
          margin={{ left: 0, right: 12, top: 8, bottom: 0 }}
          onItemClick={(_: unknown, item: ScatterItemIdentifier) => {
            const point = item.seriesId === 'sessions' ? points[item.dataIndex] : undefined;
            if (point) navigate(bothScoresOf(point.session_id));
          }}
          sx={{ '& .MuiScatterChart-marker': { cursor: 'pointer' } }}
          xAxis={[{ min: 0, max: 100, label: `base ${short(comparison.base)}`, height: 44 }]}
          yAxis={[{ min: 0, max: 100, label: `candidate ${short(comparison.candidate)}`, width: 52 }]}
          series={[
            {
              id: 'sessions',
              label: 'Sessions',
              markerSize: 4,
              data: points.map((p) => ({ id: p.session_id, x: p.base, y: p.candidate })),
              valueFormatter: (v) => (v ? `base ${v.x}, candidate ${v.y}` : ''),
            },
            {
              id: 'diagonal',
              label: 'No change',
              markerSize: 1,
              color: '#9e9e9e',
              data: Array.from({ length: 51 }, (_, i) => ({ id: `diagonal-${i}`, x: 2 * i, y: 2 * i })),
              valueFormatter: () => 'no change',
            },
          ]}
        />
      </Box>
    </Box>
  );
}

function Movers({ title, movers, testId }: { title: string; movers: Mover[]; testId: string }) {
  return (
    <Box data-testid={testId} sx={{ minWidth: 0 }}>
      <Typography variant="subtitle1" component="h3">
        {title}
      </Typography>
      {movers.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          None.
        </Typography>
      ) : (
        <List dense disablePadding>
          {movers.map((m) => (
            <ListItem key={m.session_id} disableGutters sx={{ gap: 1, alignItems: 'baseline' }}>
              <Typography component="span" variant="body2" sx={{ fontWeight: 700, minWidth: 40 }}>
                {signed(m.delta, 0)}
              </Typography>
              <Typography component="span" variant="body2" color="text.secondary" sx={{ minWidth: 64, whiteSpace: 'nowrap' }}>
                {m.base} → {m.candidate}
              </Typography>
              <Link component={RouterLink} to={`/sessions/${encodeURIComponent(m.session_id)}`} variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                {m.session_id}
              </Link>
            </ListItem>
          ))}
        </List>
      )}
    </Box>
  );
}

/** The comparison of a candidate criteria with a base: the figures, the scatter, the band transitions, the movers. */
export function ComparisonView({ comparison }: { comparison: CriteriaComparison }) {
  if (comparison.n === 0) {
    return (
      <EmptyState title="No session is scored under both criteria">
        Score the same sessions under the candidate (a scoring run) to compare it with the base.
      </EmptyState>
    );
  }
  const rows = [
    { key: 'total', label: 'Total', summary: comparison.total },
    ...comparison.shared_dimensions.map((key) => ({ key, label: dimensionLabel(key), summary: comparison.dimensions[key] })),
  ];
  const unshared = [
    { side: 'base', keys: comparison.base_only_dimensions },
    { side: 'candidate', keys: comparison.candidate_only_dimensions },
  ].filter(({ keys }) => keys.length > 0);
  const agreement = [
    { label: 'Base', a: comparison.base_human_agreement },
    { label: 'Candidate', a: comparison.candidate_human_agreement },
  ];
  return (
    <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
      <Card variant="outlined" sx={{ minWidth: 0 }}>
        <CardContent>
          <Typography variant="h6" component="h2">
            {plural(comparison.n, 'session')} scored under both
          </Typography>
          <Typography variant="body2" sx={{ mb: 1 }} data-testid="comparison-ranks">
            Rank agreement of the totals: Spearman's rho {fixed(comparison.spearman_rho, 2)}, Kendall's tau-b {fixed(comparison.kendall_tau_b, 2)}
          </Typography>
          <Table size="small" aria-label="Candidate minus base">
            <TableHead>
              <TableRow>
                <TableCell component="th" scope="col">
                  Candidate − base
                </TableCell>
                <TableCell component="th" scope="col" align="right">
                  Mean
                </TableCell>
                <TableCell component="th" scope="col" align="right">
                  Median
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map(({ key, label, summary }) => (
                <TableRow key={key} data-testid="delta-row" data-key={key}>
                  <TableCell component="th" scope="row">
                    {label}
                  </TableCell>
                  <TableCell align="right">{signed(summary?.mean_delta)}</TableCell>
                  <TableCell align="right">{signed(summary?.median_delta)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          {unshared.length > 0 && (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} data-testid="comparison-unshared">
              The two rubrics differ: they compare by the total (always 0-100) and the dimensions they share. Not shared:{' '}
              {unshared.map(({ side, keys }) => `${side} only ${keys.map(dimensionLabel).join(', ')}`).join('; ')}.
            </Typography>
          )}
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
            Agreement with human labels:{' '}
            {agreement
              .map(({ label, a }) => `${label} ${a.n ? `rho ${fixed(a.spearman_rho, 2)}, MAE ${fixed(a.mean_absolute_error)} (${a.n} labelled)` : 'no labels'}`)
              .join('; ')}
          </Typography>
        </CardContent>
      </Card>
      <Card variant="outlined" sx={{ minWidth: 0 }}>
        <CardContent>
          <TotalsScatter comparison={comparison} />
        </CardContent>
      </Card>
      <Card variant="outlined" sx={{ minWidth: 0 }}>
        <CardContent>
          <Typography variant="subtitle1" component="h3">
            Band transitions
          </Typography>
          <BandTransitions
            bands={comparison.bands}
            matrix={comparison.band_transitions}
            hrefOf={(from, to) =>
              scoresHref({ criteria: comparison.candidate, band: to, comparedTo: comparison.base, comparedBand: from })
            }
          />
        </CardContent>
      </Card>
      <Card variant="outlined" sx={{ minWidth: 0 }}>
        <CardContent sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
          <Movers title="Biggest rises" movers={comparison.movers_up} testId="movers-up" />
          <Movers title="Biggest falls" movers={comparison.movers_down} testId="movers-down" />
        </CardContent>
      </Card>
    </Box>
  );
}

// How the judge agrees with human labels (current criteria): the figures, the band confusion matrix and a scatter of
// judge vs human totals.
import { Card, CardContent, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useNavigate } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { scoresHref } from '../scores/urlState';
import type { AgreementReport } from '../../api/generated/schema';
import { useAgreement } from './queries';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';

const fmt = (value: number | null, digits = 2) => (value === null ? '—' : value.toFixed(digits));
const pct = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);

/** Judge against human totals; each point links to its session's score (under the criteria compared). */
function Scatter({ report }: { report: AgreementReport }) {
  const navigate = useNavigate();
  const size = 240;
  const at = (score: number) => (score / 100) * size;
  return (
    <svg role="group" aria-label="Judge total against human total" width={size + 40} height={size + 40} viewBox={`-30 -10 ${size + 40} ${size + 40}`}>
      <rect x={0} y={0} width={size} height={size} fill="none" stroke="#bbb" />
      <line x1={0} y1={size} x2={size} y2={0} stroke="#ddd" strokeDasharray="4" />
      <text x={size / 2} y={size + 24} textAnchor="middle" fontSize={11}>
        human
      </text>
      <text x={-20} y={size / 2} textAnchor="middle" fontSize={11} transform={`rotate(-90 -20 ${size / 2})`}>
        judge
      </text>
      {report.pairs.map((p) => {
        const href = scoresHref({ criteria: report.criteria_hash, sessionId: p.session_id });
        const name = `${p.session_id}: human ${p.human_total}, judge ${p.judge_total}`;
        return (
          <a
            key={p.session_id}
            href={href}
            aria-label={`${name}: open its score`}
            data-testid="agreement-point"
            onClick={(event) => {
              event.preventDefault();
              navigate(href);
            }}
          >
            <circle cx={at(p.human_total)} cy={size - at(p.judge_total)} r={4.5} fill="#1976d2" opacity={0.7} style={{ cursor: 'pointer' }}>
              <title>{name}</title>
            </circle>
          </a>
        );
      })}
    </svg>
  );
}

export function AgreementView({ report }: { report: AgreementReport }) {
  if (report.n === 0) {
    return (
      <EmptyState title="No labelled sessions yet">
        Label scored sessions on their Score view (or import a CSV with session-scoring labels import) to compare the judge with humans.
      </EmptyState>
    );
  }
  const figures: [string, string][] = [
    ['Sessions', String(report.n)],
    ["Spearman's rho", fmt(report.spearman_rho)],
    ["Kendall's tau", fmt(report.kendall_tau)],
    ['Mean absolute error', fmt(report.mean_absolute_error, 1)],
    ['Within 5 points', pct(report.within_5)],
    ['Within 10 points', pct(report.within_10)],
    ['Weighted kappa (bands)', fmt(report.weighted_kappa)],
    [`Krippendorff's alpha (humans, ${report.human_sessions_multi} sessions)`, fmt(report.krippendorff_alpha)],
  ];
  return (
    <>
      <Card variant="outlined" sx={{ mb: 2 }}>
        <CardContent>
          <Table size="small" aria-label="Agreement figures">
            <TableBody>
              {figures.map(([name, value]) => (
                <TableRow key={name}>
                  <TableCell component="th" scope="row">
                    {name}
                  </TableCell>
                  <TableCell>{value}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>
      <Card variant="outlined" sx={{ mb: 2 }}>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Bands: humans (rows) by judge (columns)
          </Typography>
          {/* compact and fixed at phone width: the six columns fit without a sideways scroll */}
          <Table
            size="small"
            aria-label="Band confusion matrix"
            sx={{
              tableLayout: 'fixed',
              '& td, & th': { px: { xs: 0.25, sm: 2 }, fontSize: { xs: '0.75rem', sm: '0.875rem' }, overflowWrap: 'anywhere' },
            }}
          >
            <TableHead>
              <TableRow>
                <TableCell />
                {report.bands.map((band) => (
                  <TableCell key={band}>{band}</TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {report.confusion.map((row, i) => (
                <TableRow key={report.bands[i]}>
                  <TableCell component="th" scope="row">
                    {report.bands[i]}
                  </TableCell>
                  {row.map((count, j) => (
                    <TableCell key={report.bands[j]} sx={i === j ? { fontWeight: 'bold' } : undefined}>
                      {count}
                    </TableCell>
                  ))}
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>
      <Card variant="outlined">
        <CardContent>
          <Scatter report={report} />
        </CardContent>
      </Card>
    </>
  );
}

export function AgreementPage() {
  const agreement = useAgreement(null);
  return (
    <>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        Judge vs humans
      </Typography>
      {agreement.error && <ErrorState message={errorMessage(agreement.error)} onRetry={() => void agreement.refetch()} />}
      {agreement.isLoading && <Loading what="the agreement report" />}
      {agreement.data && <AgreementView report={agreement.data} />}
    </>
  );
}

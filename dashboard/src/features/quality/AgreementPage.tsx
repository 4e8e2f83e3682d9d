// How the judge agrees with human labels (current criteria): the figures, the band confusion matrix, a scatter of
// judge vs human totals with axes and a tooltip, the largest judge-human gaps, and the way into the labelling queue.
import {
  Box,
  Button,
  Card,
  CardContent,
  Link,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { scoresHref } from '../scores/urlState';
import type { AgreementPair, AgreementReport } from '../../api/generated/schema';
import { useAgreement } from './queries';
import { shortSessionId } from '../../shared/components/SessionId';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { type BandDefinition, bandFor, useScoreBands } from '../../shared/scoreBands';

const fmt = (value: number | null, digits = 2) => (value === null ? '—' : value.toFixed(digits));
const pct = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);
const total = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
/** The judge's total minus the human's, signed ("+12", "-7.5"). */
const gapOf = (p: AgreementPair) => p.judge_total - p.human_total;
const signedGap = (gap: number) => `${gap > 0 ? '+' : ''}${total(gap)}`;

/** How many of the largest gaps the table lists. */
export const GAPS_SHOWN = 10;

/** A band's name as people read it ("Near-perfect"), from the API's bands; its key made readable before they load. */
function useBandLabel(): (band: string) => string {
  const { data: bands = [] } = useScoreBands();
  return (band) => bands.find((b) => b.band === band)?.label ?? band.replaceAll('_', ' ');
}

function describePair(p: AgreementPair, bands: readonly BandDefinition[]) {
  const band = (score: number) => bandFor(score, bands)?.label;
  const human = band(p.human_total);
  const judge = band(p.judge_total);
  return {
    human: `human ${total(p.human_total)}${human ? ` (${human})` : ''}`,
    judge: `judge ${p.judge_total}${judge ? ` (${judge})` : ''}`,
    gap: `gap ${signedGap(gapOf(p))}`,
  };
}

const TICKS = [0, 25, 50, 75, 100];
const PLOT = 240;
const LEFT = 44;
const TOP = 10;
const BOTTOM = 44;
const RIGHT = 12;

/** Judge against human totals, with numbered axes; each point links to its session's score (under the criteria
 * compared) and names its figures in a tooltip on hover or keyboard focus. */
function Scatter({ report }: { report: AgreementReport }) {
  const navigate = useNavigate();
  const { data: bands = [] } = useScoreBands();
  const [shown, setShown] = useState<AgreementPair | null>(null);
  const width = LEFT + PLOT + RIGHT;
  const height = TOP + PLOT + BOTTOM;
  const x = (score: number) => LEFT + (score / 100) * PLOT;
  const y = (score: number) => TOP + PLOT - (score / 100) * PLOT;
  const tip = shown ? describePair(shown, bands) : null;
  return (
    <Box sx={{ position: 'relative', width: '100%', maxWidth: 420 }}>
      <svg
        role="group"
        aria-label="Judge total against human total"
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        style={{ display: 'block', overflow: 'visible' }}
      >
        {TICKS.map((t) => (
          <g key={t} aria-hidden>
            <line x1={x(t)} y1={TOP} x2={x(t)} y2={TOP + PLOT} stroke="#eee" />
            <line x1={LEFT} y1={y(t)} x2={LEFT + PLOT} y2={y(t)} stroke="#eee" />
            <text x={x(t)} y={TOP + PLOT + 14} textAnchor="middle" fontSize={10} fill="#555">
              {t}
            </text>
            <text x={LEFT - 6} y={y(t) + 3} textAnchor="end" fontSize={10} fill="#555">
              {t}
            </text>
          </g>
        ))}
        <rect x={LEFT} y={TOP} width={PLOT} height={PLOT} fill="none" stroke="#999" aria-hidden />
        <line x1={x(0)} y1={y(0)} x2={x(100)} y2={y(100)} stroke="#bbb" strokeDasharray="4" aria-hidden />
        <text x={LEFT + PLOT / 2} y={TOP + PLOT + 34} textAnchor="middle" fontSize={11} fill="#333" aria-hidden>
          Human total
        </text>
        <text x={12} y={TOP + PLOT / 2} textAnchor="middle" fontSize={11} fill="#333" transform={`rotate(-90 12 ${TOP + PLOT / 2})`} aria-hidden>
          Judge total
        </text>
        {report.pairs.map((p) => {
          const href = scoresHref({ criteria: report.criteria_hash, sessionId: p.session_id });
          const d = describePair(p, bands);
          return (
            <a
              key={p.session_id}
              href={href}
              aria-label={`${p.session_id}: ${d.human}, ${d.judge}, ${d.gap}: open its score`}
              data-testid="agreement-point"
              onClick={(event) => {
                event.preventDefault();
                navigate(href);
              }}
              onMouseEnter={() => setShown(p)}
              onMouseLeave={() => setShown(null)}
              onFocus={() => setShown(p)}
              onBlur={() => setShown(null)}
            >
              <circle
                cx={x(p.human_total)}
                cy={y(p.judge_total)}
                r={shown === p ? 6.5 : 4.5}
                fill="#1976d2"
                opacity={0.75}
                stroke={shown === p ? '#0d3c78' : 'none'}
                strokeWidth={2}
                style={{ cursor: 'pointer' }}
              />
            </a>
          );
        })}
      </svg>
      {shown && tip && (
        // what the point's accessible name says already, shown to the eye: hidden from screen readers
        <Paper
          aria-hidden
          elevation={3}
          data-testid="agreement-tooltip"
          sx={{
            position: 'absolute',
            left: `${(100 * x(shown.human_total)) / width}%`,
            top: `${(100 * y(shown.judge_total)) / height}%`,
            transform: `translate(${shown.human_total > 60 ? 'calc(-100% - 10px)' : '10px'}, -50%)`,
            px: 1,
            py: 0.5,
            pointerEvents: 'none',
            whiteSpace: 'nowrap',
            fontSize: '0.75rem',
          }}
        >
          <strong>{shortSessionId(shown.session_id)}</strong>
          <br />
          {tip.human}
          <br />
          {tip.judge}
          <br />
          {tip.gap}
        </Paper>
      )}
    </Box>
  );
}

/** The sessions where judge and humans differ most, largest first, each linking to its session's page. */
export function GapsTable({ report }: { report: AgreementReport }) {
  const { data: bands = [] } = useScoreBands();
  const band = (score: number) => bandFor(score, bands)?.label ?? '';
  const largest = [...report.pairs]
    .sort((a, b) => Math.abs(gapOf(b)) - Math.abs(gapOf(a)) || a.session_id.localeCompare(b.session_id))
    .slice(0, GAPS_SHOWN);
  return (
    <Table size="small" aria-label="Largest judge-human gaps" sx={{ tableLayout: 'fixed' }}>
      <TableHead>
        <TableRow>
          <TableCell>Session</TableCell>
          <TableCell sx={{ width: { xs: 64, sm: 140 } }}>Human</TableCell>
          <TableCell sx={{ width: { xs: 64, sm: 140 } }}>Judge</TableCell>
          <TableCell sx={{ width: { xs: 52, sm: 90 } }} align="right">
            Gap
          </TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {largest.map((p) => (
          <TableRow key={p.session_id} data-testid="agreement-gap" data-session-id={p.session_id}>
            <TableCell>
              <Link component={RouterLink} to={`/sessions/${encodeURIComponent(p.session_id)}`} title={p.session_id}>
                <code>{shortSessionId(p.session_id)}</code>
              </Link>
            </TableCell>
            <TableCell>
              {total(p.human_total)}
              <Typography variant="caption" color="text.secondary" sx={{ display: { xs: 'none', sm: 'inline' } }}>
                {' '}
                {band(p.human_total)}
              </Typography>
            </TableCell>
            <TableCell>
              {p.judge_total}
              <Typography variant="caption" color="text.secondary" sx={{ display: { xs: 'none', sm: 'inline' } }}>
                {' '}
                {band(p.judge_total)}
              </Typography>
            </TableCell>
            <TableCell align="right" data-testid="agreement-gap-value">
              {signedGap(gapOf(p))}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

export function AgreementView({ report }: { report: AgreementReport }) {
  const bandLabel = useBandLabel();
  if (report.n === 0) {
    return (
      <EmptyState title="No labelled sessions yet">
        Label scored sessions with <strong>Label next</strong> above or on their Score view (or import a CSV with
        session-scoring labels import) to compare the judge with humans.
      </EmptyState>
    );
  }
  // Each figure with a one-line guide to reading it (the usual rules of thumb; docs/judge-quality.md has more).
  const figures: [string, string, string][] = [
    ['Sessions', String(report.n), 'Sessions scored by the judge and labelled by humans; under 30, read the rest loosely.'],
    ["Spearman's rho", fmt(report.spearman_rho), 'Do both rank sessions alike? 1 the same order, 0 unrelated; 0.7 or more is strong.'],
    ["Kendall's tau", fmt(report.kendall_tau), 'The share of pairs ordered alike, minus those ordered the other way; 0.5 or more is strong.'],
    ['Mean absolute error', fmt(report.mean_absolute_error, 1), 'Points apart on average (0-100); under 10 is close.'],
    ['Within 5 points', pct(report.within_5), 'Sessions where judge and humans are at most 5 points apart.'],
    ['Within 10 points', pct(report.within_10), 'Sessions where judge and humans are at most 10 points apart.'],
    ['Weighted kappa (bands)', fmt(report.weighted_kappa), 'Agreement on the band beyond chance, near misses counted in part; 0.6 or more is substantial.'],
    [
      `Krippendorff's alpha (humans, ${report.human_sessions_multi} sessions)`,
      fmt(report.krippendorff_alpha),
      'How much the humans agree with each other (the ceiling for the judge); 0.8 or more is reliable, under 0.67 doubtful.',
    ],
  ];
  return (
    <>
      <Card variant="outlined" sx={{ mb: 2 }}>
        <CardContent>
          <Table size="small" aria-label="Agreement figures">
            <TableBody>
              {figures.map(([name, value, guide]) => (
                <TableRow key={name}>
                  <TableCell component="th" scope="row">
                    {name}
                    <Typography variant="caption" color="text.secondary" component="div" data-testid="figure-guide">
                      {guide}
                    </Typography>
                  </TableCell>
                  <TableCell sx={{ verticalAlign: 'top' }}>{value}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' }, mb: 2 }}>
        <Card variant="outlined">
          <CardContent>
            <Typography variant="h6" component="h2" gutterBottom>
              Judge against human totals
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              Above the diagonal the judge scores higher. Point at a session (or tab to it) to read its figures; click
              it for its score.
            </Typography>
            <Scatter report={report} />
          </CardContent>
        </Card>
        <Card variant="outlined">
          <CardContent>
            <Typography variant="h6" component="h2" gutterBottom>
              Largest gaps
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              The {Math.min(GAPS_SHOWN, report.pairs.length)} sessions where judge and humans differ most (gap: judge
              minus human).
            </Typography>
            <GapsTable report={report} />
          </CardContent>
        </Card>
      </Box>
      <Card variant="outlined">
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Bands: humans (rows) by judge (columns)
          </Typography>
          {/* compact and fixed at phone width: the six columns fit without a sideways scroll; names wrap between
              words only */}
          <Table
            size="small"
            aria-label="Band confusion matrix"
            sx={{
              tableLayout: 'fixed',
              '& td, & th': { px: { xs: 0.25, sm: 2 }, fontSize: { xs: '0.75rem', sm: '0.875rem' }, overflowWrap: 'normal', wordBreak: 'normal' },
            }}
          >
            <TableHead>
              <TableRow>
                <TableCell />
                {report.bands.map((band) => (
                  <TableCell key={band} component="th" scope="col">
                    {bandLabel(band)}
                  </TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {report.confusion.map((row, i) => (
                <TableRow key={report.bands[i]}>
                  <TableCell component="th" scope="row">
                    {bandLabel(report.bands[i])}
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
    </>
  );
}

export function AgreementPage() {
  const agreement = useAgreement(null);
  return (
    <>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center', mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ flexGrow: 1 }}>
          Judge vs humans
        </Typography>
        <Button variant="contained" component={RouterLink} to="/agreement/label">
          Label next
        </Button>
      </Box>
      {agreement.error && <ErrorState message={errorMessage(agreement.error)} onRetry={() => void agreement.refetch()} />}
      {agreement.isLoading && <Loading what="the agreement report" />}
      {agreement.data && <AgreementView report={agreement.data} />}
    </>
  );
}

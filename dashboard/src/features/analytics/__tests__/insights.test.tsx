import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import type { CriteriaComparison, HumanAgreement, TrendPoint, TrendsReport } from '../../../api/generated/schema';
import type { MissingToolsReport } from '../../../api/generated/schema';
import { render } from '../../../test/render';
import { METHODOLOGY_DIMENSIONS, TRIAGE_DIMENSIONS } from '../../../test/fixtures';
import { heat } from '../BandTransitions';
import { ComparisonView } from '../ComparisonView';
import { MissingToolsTable } from '../MissingToolsTable';
import { MAX_GROUPS, TrendCharts } from '../TrendCharts';

const W1 = '2026-11-02T00:00:00Z';
const W2 = '2026-11-09T00:00:00Z';

function point(bucket_start: string, group: string | null, count: number, mean: number): TrendPoint {
  return {
    bucket_start,
    group,
    count,
    mean,
    p10: mean - 10,
    p50: mean,
    p90: mean + 10,
    dimension_means: { logical_flow: mean / 4, consistency: mean / 4, tool_relevance: null, synthesis_quality: mean / 4 },
    band_shares: {},
    with_reference: 0,
    outcome_counts: { found: 0, partly_found: 0, missed: 0 },
    found_share: null,
  };
}

function report(group_by: TrendsReport['group_by'], points: TrendPoint[]): TrendsReport {
  return { criteria_hash: null, bucket: 'week', group_by, scored_after: null, scored_before: null, points };
}

describe('TrendCharts', () => {
  it('draws the total statistics and the four dimensions over the buckets', () => {
    render(
      <MemoryRouter>
        <TrendCharts report={report('none', [point(W1, null, 3, 60), point(W2, null, 2, 70)])} stat="mean" dimension="logical_flow" rubric={METHODOLOGY_DIMENSIONS} hrefOf={() => '/scores'} />
      </MemoryRouter>,
    );

    expect(screen.getByTestId('trend-summary')).toHaveTextContent('5 sessions in total over 2 weeks');
    const total = screen.getByTestId('trend-total');
    expect(within(total).getByRole('img', { name: /^Total score: Mean 70\.0, p10 60\.0, Median \(p50\) 70\.0, p90 80\.0 points/ })).toBeInTheDocument();
    expect(total.querySelector('svg')).not.toBeNull();
    for (const name of ['Mean', 'p10', 'Median (p50)', 'p90']) expect(within(total).getAllByText(name).length).toBeGreaterThan(0);
    const dimensions = screen.getByTestId('trend-dimensions');
    // a dimension no score had is a gap, not a zero
    expect(within(dimensions).getByRole('img', { name: /Logical flow 17\.5, Consistency 17\.5, Tool relevance —, Synthesis quality 17\.5/ })).toBeInTheDocument();
  });

  it("draws the dimensions of another rubric on an axis up to their largest maximum, not 25", () => {
    const triage = (bucket: string, mean: number): TrendPoint => ({
      ...point(bucket, null, 2, mean),
      dimension_means: { evidence: 8, diagnosis: 24, next_steps: null },
    });
    render(
      <MemoryRouter>
        <TrendCharts report={report('none', [triage(W1, 60), triage(W2, 70)])} stat="mean" dimension="logical_flow" rubric={TRIAGE_DIMENSIONS} hrefOf={() => '/scores'} />
      </MemoryRouter>,
    );

    const dimensions = screen.getByTestId('trend-dimensions');
    expect(dimensions).toHaveAttribute('data-axis-max', '60');
    expect(within(dimensions).getByRole('img', { name: 'Dimensions: mean: Evidence 8.0, Diagnosis 24.0, Next steps — points in the latest bucket, on a scale of 0 to 60' })).toBeInTheDocument();
    expect(screen.getByTestId('trend-total')).toHaveAttribute('data-axis-max', '100');
  });

  it('draws one line per group, the largest groups only, and names the rest', () => {
    const agents = Array.from({ length: MAX_GROUPS + 1 }, (_, i) => point(W1, `agent-${i}`, 20 - i, 50 + i));
    render(
      <MemoryRouter>
        <TrendCharts report={report('agent', [...agents, point(W2, null, 1, 30)])} stat="p90" dimension="consistency" rubric={METHODOLOGY_DIMENSIONS} hrefOf={() => '/scores'} />
      </MemoryRouter>,
    );

    expect(screen.getByTestId('trend-summary')).toHaveTextContent('over 2 weeks, 10 agents');
    const total = within(screen.getByTestId('trend-total'));
    expect(total.getByText('Total score: p90 per agent')).toBeInTheDocument();
    expect(total.getByRole('img', { name: /agent-0 60\.0/ })).toBeInTheDocument();
    expect(screen.getByText(/Not drawn \(fewer sessions\): agent-8, unknown/)).toBeInTheDocument();
    expect(screen.getByText('Consistency: mean per agent')).toBeInTheDocument();
  });
});

const agreement = (criteria_hash: string, n: number): HumanAgreement => ({
  criteria_hash,
  n,
  spearman_rho: n ? 0.9 : null,
  kendall_tau: null,
  mean_absolute_error: n ? 4.5 : null,
  weighted_kappa: null,
});

const BASE = 'b'.repeat(64);
const CANDIDATE = 'c'.repeat(64);
const BANDS = ['failed', 'weak', 'adequate', 'good', 'near_perfect'];

const comparison: CriteriaComparison = {
  base: BASE,
  candidate: CANDIDATE,
  n: 3,
  total: { n: 3, mean_delta: -4, median_delta: -5 },
  dimensions: {
    logical_flow: { n: 3, mean_delta: 1.5, median_delta: 1 },
    consistency: { n: 3, mean_delta: 0, median_delta: 0 },
    tool_relevance: { n: 3, mean_delta: -5.5, median_delta: -6 },
    synthesis_quality: { n: 0, mean_delta: null, median_delta: null },
  },
  spearman_rho: 0.5,
  kendall_tau_b: 1 / 3,
  bands: BANDS,
  band_transitions: [
    [1, 0, 0, 0, 0],
    [0, 0, 0, 0, 0],
    [0, 1, 0, 0, 0],
    [0, 0, 0, 0, 0],
    [0, 0, 0, 1, 0],
  ],
  movers_up: [{ session_id: 's-up', base: 40, candidate: 44, delta: 4 }],
  movers_down: [
    { session_id: 's-down', base: 92, candidate: 80, delta: -12 },
    { session_id: 's/odd', base: 70, candidate: 56, delta: -14 },
  ],
  base_human_agreement: agreement(BASE, 2),
  candidate_human_agreement: agreement(CANDIDATE, 0),
  points: [
    { session_id: 's-up', base: 40, candidate: 44 },
    { session_id: 's-down', base: 92, candidate: 80 },
  ],
  with_reference: false,
  shared_dimensions: ['logical_flow', 'consistency', 'tool_relevance', 'synthesis_quality'],
  base_only_dimensions: [],
  candidate_only_dimensions: [],
};

describe('ComparisonView', () => {
  it('shows the deltas, rank agreement, scatter, band transitions and the movers linking to their sessions', () => {
    render(
      <MemoryRouter>
        <ComparisonView comparison={comparison} />
      </MemoryRouter>,
    );

    expect(screen.getByText('3 sessions scored under both')).toBeInTheDocument();
    expect(screen.getByTestId('comparison-ranks')).toHaveTextContent("Spearman's rho 0.50, Kendall's tau-b 0.33");
    const deltas = within(screen.getByRole('table', { name: 'Candidate minus base' }));
    expect(deltas.getByRole('row', { name: /^Total/ })).toHaveTextContent('Total-4.0-5.0');
    expect(deltas.getByRole('row', { name: /^Logical flow/ })).toHaveTextContent('+1.5+1.0');
    expect(deltas.getByRole('row', { name: /^Synthesis quality/ })).toHaveTextContent('——');
    expect(screen.queryByTestId('comparison-unshared')).toBeNull(); // one rubric: every dimension is shared
    expect(screen.getByText(/Base rho 0\.90, MAE 4\.5 \(2 labelled\); Candidate no labels/)).toBeInTheDocument();

    expect(screen.getByRole('img', { name: 'Scatter of 2 sessions: base total against candidate total' })).toBeInTheDocument();
    expect(screen.getByText(/2 of 3 sessions \(a fixed sample\)/)).toBeInTheDocument();

    const matrix = within(screen.getByRole('table', { name: /Band transitions/ }));
    expect(matrix.getByRole('row', { name: /^Adequate/ })).toHaveTextContent('Adequate01000');
    const cell = screen.getAllByTestId('transition-cell').find((c) => c.dataset.from === 'near_perfect' && c.dataset.to === 'good');
    expect(cell).toHaveTextContent('1');
    // a count opens the scores of its sessions: the candidate's good ones that were near-perfect under the base
    expect(within(cell as HTMLElement).getByRole('link')).toHaveAttribute(
      'href',
      `/scores?criteria_hash=${CANDIDATE}&band=good&compared_to=${BASE}&compared_band=near_perfect`,
    );

    const falls = within(screen.getByTestId('movers-down'));
    expect(falls.getByRole('link', { name: 's-down' })).toHaveAttribute('href', '/sessions/s-down');
    expect(falls.getByRole('link', { name: 's/odd' })).toHaveAttribute('href', '/sessions/s%2Fodd');
    expect(within(screen.getByTestId('movers-up')).getByText('+4')).toBeInTheDocument();
  });

  it('compares two rubrics by the total and the dimensions they share, naming the others', () => {
    render(
      <MemoryRouter>
        <ComparisonView
          comparison={{
            ...comparison,
            dimensions: {},
            shared_dimensions: [],
            base_only_dimensions: ['logical_flow', 'consistency', 'tool_relevance', 'synthesis_quality'],
            candidate_only_dimensions: ['investigation_outcome', 'evidence_gathering'],
          }}
        />
      </MemoryRouter>,
    );

    const rows = screen.getAllByTestId('delta-row');
    expect(rows.map((r) => r.dataset.key)).toEqual(['total']);
    expect(screen.getByTestId('comparison-unshared')).toHaveTextContent(
      'Not shared: base only Logical flow, Consistency, Tool relevance, Synthesis quality; candidate only Investigation outcome, Evidence gathering.',
    );
  });

  it('says how to get a comparison when no session is scored under both', () => {
    render(<ComparisonView comparison={{ ...comparison, n: 0, points: [] }} />);

    expect(screen.getByText('No session is scored under both criteria')).toBeInTheDocument();
  });
});

const untrended = { spellings: [], trend: [], by_agent: [], available_in_sessions: 0 };

const tools: MissingToolsReport = {
  criteria_hash: null,
  bucket: 'week',
  periods: 12,
  items: [
    { tool_name: 'get_pod_logs', count: 7, session_ids: [], ...untrended },
    { tool_name: 'kubectl_top', count: 3, session_ids: [], ...untrended },
  ],
};

describe('MissingToolsTable', () => {
  it('lists the tools with their counts and links, and no trend column when no tool has a trend', () => {
    render(
      <MemoryRouter>
        <MissingToolsTable report={tools} criteriaHash={BASE} />
      </MemoryRouter>,
    );

    const table = within(screen.getByRole('table', { name: 'Most frequent missing tools' }));
    expect(table.queryByRole('columnheader', { name: /Trend/ })).toBeNull();
    expect(table.queryByRole('columnheader', { name: 'Agents' })).toBeNull();
    expect(table.getByRole('link', { name: 'get_pod_logs' })).toHaveAttribute('href', `/analytics/missing-tools/get_pod_logs?criteria_hash=${BASE}`);
    expect(screen.getAllByTestId('missing-tool-count').map((c) => c.textContent)).toEqual(['7', '3']);
  });

  it('draws a sparkline per tool, its agents, spellings and where it was available', () => {
    const withTrend: MissingToolsReport = {
      ...tools,
      bucket: 'week',
      periods: 2,
      items: [
        {
          ...tools.items[0],
          spellings: ['get_pod_logs', 'mcp__k8s__get_pod_logs'],
          trend: [
            { bucket_start: W2, count: 5 },
            { bucket_start: W1, count: 2 },
          ],
          by_agent: [
            { agent: 'KubernetesAgent', count: 6 },
            { agent: null, count: 1 },
          ],
          available_in_sessions: 4,
        },
        tools.items[1],
      ],
    };
    render(
      <MemoryRouter>
        <MissingToolsTable report={withTrend} criteriaHash={null} />
      </MemoryRouter>,
    );

    expect(screen.getByRole('columnheader', { name: 'Trend (per week)' })).toBeInTheDocument();
    const sparkline = screen.getByRole('img', { name: 'get_pod_logs per period: Nov 2 2, Nov 9 5' });
    expect(sparkline.querySelector('svg')).not.toBeNull();
    const row = screen.getAllByTestId('missing-tool-row')[0];
    expect(row).toHaveTextContent('also written mcp__k8s__get_pod_logs');
    expect(row).toHaveTextContent('KubernetesAgent 6, unknown 1');
    expect(within(row).getByTestId('missing-tool-available')).toHaveTextContent('available in 4');
    expect(screen.getAllByTestId('missing-tool-row')[1]).toHaveTextContent('—');
    expect(screen.getByRole('link', { name: 'kubectl_top' })).toHaveAttribute('href', '/analytics/missing-tools/kubectl_top');
  });
});

describe('heat', () => {
  it('keeps at least 4.5:1 contrast between a cell and its text at every shade', () => {
    const luminance = (rgb: number[]) => {
      const [r, g, b] = rgb.map((c) => {
        const v = c / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    for (let i = 0; i <= 100; i++) {
      const { background, color } = heat(i / 100);
      const bg = luminance(background.match(/\d+/g)!.map(Number));
      const text = color === '#fff' ? 1 : 0;
      const ratio = (Math.max(bg, text) + 0.05) / (Math.min(bg, text) + 0.05);
      expect(ratio).toBeGreaterThanOrEqual(4.5);
    }
    expect(heat(0).color).toBe('#000');
    expect(heat(1).color).toBe('#fff');
  });
});

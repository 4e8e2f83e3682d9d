import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import type { CriteriaUsage, MissingToolSession } from '../../../api/generated/schema';
import { TRIAGE_DIMENSIONS, makeCriteria } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { ComparisonPage } from '../ComparisonPage';
import { ToolSessionsPage } from '../ToolSessionsPage';
import { TrendsPage } from '../TrendsPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return {
    ...actual,
    api: {
      criteriaInUse: vi.fn(),
      currentCriteria: vi.fn(),
      criteria: vi.fn(),
      trends: vi.fn(),
      criteriaComparison: vi.fn(),
      missingToolSessions: vi.fn(),
    },
  };
});

const mocked = vi.mocked(api, true);

function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/analytics/trends" element={<TrendsPage />} />
        <Route path="/analytics/compare" element={<ComparisonPage />} />
        <Route path="/analytics/missing-tools/:tool" element={<ToolSessionsPage />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

const criteria = (hash: string, is_current: boolean, created_at: string): CriteriaUsage => ({
  criteria_hash: hash,
  llm_provider: 'heuristic',
  llm_model: 'h',
  created_at,
  completed_sessions: 10,
  is_current,
});

beforeEach(() => {
  vi.resetAllMocks();
  mocked.criteriaInUse.mockResolvedValue([]);
  mocked.currentCriteria.mockResolvedValue(makeCriteria('a'.repeat(64)));
  mocked.criteria.mockImplementation(async (hash) => makeCriteria(hash));
});

describe('TrendsPage', () => {
  it('asks for weekly trends, then per agent once grouped by agent', async () => {
    mocked.trends.mockImplementation(async (query) => ({
      criteria_hash: null,
      bucket: query.bucket ?? 'day',
      group_by: query.group_by ?? 'none',
      scored_after: null,
      scored_before: null,
      points: [],
    }));
    renderAt('/analytics/trends');

    expect(await screen.findByText('No completed scores in this selection')).toBeInTheDocument();
    expect(mocked.trends).toHaveBeenLastCalledWith({ bucket: 'week', group_by: 'none' });
    await userEvent.click(screen.getByRole('combobox', { name: 'Lines per' }));
    await userEvent.click(screen.getByRole('option', { name: 'Agent' }));
    await vi.waitFor(() => expect(mocked.trends).toHaveBeenLastCalledWith({ bucket: 'week', group_by: 'agent' }));
    expect(screen.getByRole('combobox', { name: 'Dimension' })).toBeInTheDocument();
  });

  it("opens the Scores table of a week a point or the bucket picker names, of the point's agent", async () => {
    const point = (bucket_start: string, group: string | null, count: number) => ({
      bucket_start,
      group,
      count,
      mean: 70,
      p10: 60,
      p50: 70,
      p90: 80,
      dimension_means: {},
      band_shares: {},
      with_reference: 0,
      outcome_counts: {},
      found_share: null,
    });
    mocked.trends.mockImplementation(async (query) => ({
      criteria_hash: null,
      bucket: 'week',
      group_by: query.group_by ?? 'none',
      scored_after: null,
      scored_before: null,
      points: [point('2026-11-02T00:00:00Z', 'NetworkAgent', 3), point('2026-11-09T00:00:00Z', 'NetworkAgent', 2)],
    }));
    renderAt('/analytics/trends?group_by=agent');

    await userEvent.click(await screen.findByRole('combobox', { name: 'Open the scores of a week' }));
    await userEvent.click(screen.getByRole('option', { name: /^Nov 2 \(3 sessions\)/ }));

    expect(screen.getByTestId('location')).toHaveTextContent(
      '/scores?criteria_hash=any&scored_after=2026-11-02&scored_before=2026-11-09',
    );
  });

  it('asks for a date range, and asks nothing for a range that ends before it starts', async () => {
    mocked.trends.mockResolvedValue({ criteria_hash: null, bucket: 'week', group_by: 'none', scored_after: null, scored_before: null, points: [] });
    renderAt('/analytics/trends?scored_after=2026-11-02&scored_before=2026-11-30');

    await vi.waitFor(() =>
      expect(mocked.trends).toHaveBeenLastCalledWith({
        bucket: 'week',
        group_by: 'none',
        scored_after: '2026-11-02T00:00:00Z',
        scored_before: '2026-11-30T00:00:00Z',
      }),
    );
    expect(screen.getByLabelText('Scored from (UTC)')).toHaveValue('2026-11-02');
    mocked.trends.mockClear();
    await userEvent.clear(screen.getByLabelText('Scored before (UTC)'));
    await userEvent.type(screen.getByLabelText('Scored before (UTC)'), '2026-10-01');

    expect(await screen.findByText('The "before" date must come after the "from" date.')).toBeInTheDocument();
    expect(mocked.trends).not.toHaveBeenCalledWith(expect.objectContaining({ scored_before: '2026-10-01T00:00:00Z' }));
  });
});

describe('TrendsPage under a rubric of other dimensions', () => {
  const TRIAGE = 'c'.repeat(64);
  const point = (bucket_start: string, dimension_means: Record<string, number | null>) => ({
    bucket_start,
    group: 'NetworkAgent',
    count: 3,
    mean: 70,
    p10: 60,
    p50: 70,
    p90: 80,
    dimension_means,
    band_shares: {},
    with_reference: 0,
    outcome_counts: {},
    found_share: null,
  });
  const answer = (dimension_means: Record<string, number | null>) => ({
    criteria_hash: null,
    bucket: 'week' as const,
    group_by: 'agent' as const,
    scored_after: null,
    scored_before: null,
    points: [point('2026-11-02T00:00:00Z', dimension_means), point('2026-11-09T00:00:00Z', dimension_means)],
  });
  const chart = () => screen.getByTestId('trend-dimensions');

  beforeEach(() => {
    mocked.currentCriteria.mockResolvedValue(makeCriteria(TRIAGE, TRIAGE_DIMENSIONS, 'triage'));
    mocked.criteria.mockImplementation(async (hash) => (hash === TRIAGE ? makeCriteria(TRIAGE, TRIAGE_DIMENSIONS, 'triage') : makeCriteria(hash)));
    mocked.criteriaInUse.mockResolvedValue([criteria(TRIAGE, true, '2026-11-01T00:00:00Z')]);
  });

  it("offers the rubric's dimensions with their maxima, each charted from 0 to its own maximum", async () => {
    mocked.trends.mockResolvedValue(answer({ evidence: 6, diagnosis: 21, next_steps: 40 }));
    renderAt(`/analytics/trends?group_by=agent&criteria_hash=${TRIAGE}`);

    await userEvent.click(await screen.findByRole('combobox', { name: 'Dimension' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['Evidence (of 10)', 'Diagnosis (of 30)', 'Next steps (of 60)']);
    expect(mocked.criteria).toHaveBeenCalledWith(TRIAGE);
    await userEvent.click(screen.getByRole('option', { name: 'Next steps (of 60)' }));

    expect(await within(chart()).findByText('Next steps: mean per agent')).toBeInTheDocument();
    expect(chart()).toHaveAttribute('data-axis-max', '60');
    expect(within(chart()).getByRole('img', { name: /NetworkAgent 40\.0 points in the latest bucket, on a scale of 0 to 60/ })).toBeInTheDocument();
  });

  it("draws the rubric's first dimension for a URL's dimension it lacks, and leaves out keys it lacks that have no mean", async () => {
    // an answer that still carries the default four (no means) besides the rubric's own
    mocked.trends.mockResolvedValue(
      answer({ logical_flow: null, consistency: null, tool_relevance: null, synthesis_quality: null, evidence: 6, diagnosis: 21, next_steps: 40 }),
    );
    renderAt('/analytics/trends?group_by=agent&dimension=logical_flow');

    expect(await screen.findByText('Evidence: mean per agent')).toBeInTheDocument();
    expect(chart()).toHaveAttribute('data-axis-max', '10');
    expect(screen.getByRole('combobox', { name: 'Dimension' })).toHaveTextContent('Evidence (of 10)');
    await userEvent.click(screen.getByRole('combobox', { name: 'Dimension' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['Evidence (of 10)', 'Diagnosis (of 30)', 'Next steps (of 60)']);
  });
});

describe('ComparisonPage', () => {
  it('compares the newest other criteria with the current one by default', async () => {
    const base = 'a'.repeat(64);
    const candidate = 'c'.repeat(64);
    mocked.criteriaInUse.mockResolvedValue([
      criteria(base, true, '2026-11-01T00:00:00Z'),
      criteria('b'.repeat(64), false, '2026-10-01T00:00:00Z'),
      criteria(candidate, false, '2026-11-10T00:00:00Z'),
    ]);
    mocked.criteriaComparison.mockRejectedValue(new Error('database unavailable'));
    renderAt('/analytics/compare');

    expect(await screen.findByText('Could not compare: database unavailable')).toBeInTheDocument();
    expect(mocked.criteriaComparison).toHaveBeenCalledWith(base, candidate);
  });

  it('explains that a comparison needs two criteria', async () => {
    mocked.criteriaInUse.mockResolvedValue([criteria('a'.repeat(64), true, '2026-11-01T00:00:00Z')]);
    renderAt('/analytics/compare');

    expect(await screen.findByText('Only one criteria has scores')).toBeInTheDocument();
    expect(mocked.criteriaComparison).not.toHaveBeenCalled();
  });
});

const session = (id: string, rationale: string): MissingToolSession => ({
  session_id: id,
  score_id: `00000000-0000-4000-8000-00000000000${id.length}`,
  total_score: 52,
  band: 'weak',
  scored_at: '2026-11-20T09:00:00Z',
  tool_name: 'mcp__k8s__get_pod_logs',
  rationale,
  agent: 'KubernetesAgent',
});

describe('ToolSessionsPage', () => {
  it('lists the sessions with their rationale, pages on, and links to each session', async () => {
    mocked.missingToolSessions
      .mockResolvedValueOnce({
        tool_name: 'get_pod_logs',
        canonical_name: 'get_pod_logs',
        criteria_hash: null,
        items: [session('s-1', 'The crash logs were never read.')],
        next_cursor: 'next',
      })
      .mockResolvedValueOnce({
        tool_name: 'get_pod_logs',
        canonical_name: 'get_pod_logs',
        criteria_hash: null,
        items: [session('s-22', 'The previous container was not inspected.')],
        next_cursor: null,
      });
    renderAt('/analytics/missing-tools/get_pod_logs');

    expect(await screen.findByText('The crash logs were never read.')).toBeInTheDocument();
    expect(mocked.missingToolSessions).toHaveBeenCalledWith('get_pod_logs', null, null, 20);
    expect(screen.getByTestId('tool-canonical')).toHaveTextContent('Counted as get_pod_logs');
    expect(screen.getByTestId('tool-session')).toHaveTextContent('written mcp__k8s__get_pod_logs');

    await userEvent.click(screen.getByRole('button', { name: 'More sessions' }));
    expect(await screen.findByText('The previous container was not inspected.')).toBeInTheDocument();
    expect(mocked.missingToolSessions).toHaveBeenLastCalledWith('get_pod_logs', null, 'next', 20);
    expect(screen.queryByRole('button', { name: 'More sessions' })).toBeNull();

    await userEvent.click(within(screen.getAllByTestId('tool-session')[1]).getByRole('link', { name: 's-22' }));
    expect(screen.getByTestId('location')).toHaveTextContent('/sessions/s-22');
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api, fleetScoresCsvUrl } from '../../../api/client';
import type { CriteriaUsage, FleetScore, FleetScorePage } from '../../../api/generated/schema';
import { METHODOLOGY_DIMENSIONS, TRIAGE_DIMENSIONS, makeCriteria } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { ScoresPage } from '../ScoresPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return {
    ...actual,
    api: { fleetScores: vi.fn(), filterValues: vi.fn(), criteriaInUse: vi.fn(), currentCriteria: vi.fn(), criteria: vi.fn() },
  };
});

const mocked = vi.mocked(api, true);

const CRITERIA: CriteriaUsage[] = [
  { criteria_hash: 'a'.repeat(64), llm_provider: 'anthropic', llm_model: 'claude-sonnet-4-6', created_at: '2026-11-01T00:00:00Z', completed_sessions: 10, is_current: true },
  { criteria_hash: 'b'.repeat(64), llm_provider: 'anthropic', llm_model: 'stricter-candidate', created_at: '2026-11-10T00:00:00Z', completed_sessions: 4, is_current: false },
];

function row(sessionId: string, total: number, overrides: Partial<FleetScore> = {}): FleetScore {
  return {
    score_id: `00000000-0000-4000-8000-${sessionId.padStart(12, '0').slice(-12)}`,
    session_id: sessionId,
    criteria_hash: 'a'.repeat(64),
    is_current_criteria: true,
    status: 'completed',
    total_score: total,
    band: 'good',
    score_breakdown: { logical_flow: 21, consistency: 20, tool_relevance: 19, synthesis_quality: 22 },
    requested_at: '2026-11-20T09:00:00Z',
    scored_at: '2026-11-20T09:00:40Z',
    judge_provider: 'anthropic',
    judge_model: 'claude',
    missing_tools: [],
    session_facts: {
      agent: 'KubernetesAgent',
      alert_type: 'PodCrashLoop',
      started_at: '2026-11-20T08:00:00Z',
      ended_at: null,
      stages: 2,
      tool_calls: 5,
      source: 'tarsy',
      captured_at: null,
    },
    outcome: 'found',
    title: null,
    ...overrides,
  };
}

function page(items: FleetScore[], nextCursor: string | null = null): FleetScorePage {
  return { items, next_cursor: nextCursor, criteria_hash: 'a'.repeat(64), sort: 'scored_at', order: 'desc', limit: 50, total_items: items.length };
}

function Location() {
  const location = useLocation();
  return <output data-testid="location">{location.search}</output>;
}

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route
          path="/scores"
          element={
            <>
              <ScoresPage />
              <Location />
            </>
          }
        />
        <Route path="/sessions/:sessionId" element={<p>session page</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

const lastQuery = () => mocked.fleetScores.mock.lastCall?.[0];
const search = () => new URLSearchParams(screen.getByTestId('location').textContent ?? '');

beforeEach(() => {
  vi.resetAllMocks();
  mocked.fleetScores.mockResolvedValue(page([row('s-1', 82)]));
  mocked.criteriaInUse.mockResolvedValue(CRITERIA);
  mocked.currentCriteria.mockResolvedValue(makeCriteria('a'.repeat(64)));
  mocked.criteria.mockImplementation(async (hash) => makeCriteria(hash));
  mocked.filterValues.mockImplementation(async (field, criteriaHash) => ({
    field,
    criteria_hash: criteriaHash,
    values: field === 'agent' ? [{ value: 'NetworkAgent', sessions: 12 }, { value: 'KubernetesAgent', sessions: 7 }] : [],
  }));
});

describe('ScoresPage', () => {
  it('shows each score with a link to its session, its total and its dimensions', async () => {
    renderAt('/scores');
    const rows = await screen.findAllByTestId('score-row');
    expect(rows).toHaveLength(1);
    expect(within(rows[0]).getByRole('link', { name: 'PodCrashLoop' })).toHaveAttribute('href', '/sessions/s-1');
    expect(within(rows[0]).getByTestId('session-short-id')).toHaveTextContent('s-1');
    expect(within(rows[0]).getByTestId('score-badge')).toHaveTextContent('82');
    expect(within(rows[0]).getByText('22')).toBeInTheDocument();
    expect(within(rows[0]).getAllByText('KubernetesAgent').length).toBeGreaterThan(0);
    expect(within(rows[0]).getByTestId('outcome-chip')).toHaveTextContent('Found');
    expect(lastQuery()).toEqual({ criteria_hash: 'current', latest_only: true, sort: 'scored_at', order: 'desc', limit: 50, with_total: true });
  });

  it('names an upload by its task, as the Sessions list does, not "Session <id>"', async () => {
    const upload = 'upload:aff8de2a-0000-4000-8000-000000000001';
    mocked.fleetScores.mockResolvedValue(
      page([row(upload, 70, { title: 'Disk full on db-7: free space below 5%', session_facts: null })]),
    );
    renderAt('/scores');

    const [first] = await screen.findAllByTestId('score-row');
    expect(within(first).getByTestId('session-link')).toHaveTextContent('Disk full on db-7: free space below 5%');
    expect(within(first).queryByText(/^Session aff8de2a/)).not.toBeInTheDocument();
  });

  it('turns the filters into request parameters and puts them in the URL', async () => {
    const user = userEvent.setup();
    renderAt('/scores');
    await screen.findAllByTestId('score-row');
    await user.type(screen.getByLabelText('Min score'), '40');
    await user.type(screen.getByLabelText('Max score'), '70');
    await user.type(screen.getByLabelText('Agent'), 'KubernetesAgent');
    await user.type(screen.getByLabelText('Alert type'), 'PodCrashLoop');
    await user.type(screen.getByLabelText('Missing tool'), 'kubectl-top');
    await user.click(screen.getByLabelText('Latest only'));
    await user.click(screen.getByLabelText('Band'));
    await user.click(await screen.findByRole('option', { name: 'Adequate' }));
    await user.click(screen.getByLabelText('Criteria'));
    await user.click(await screen.findByRole('option', { name: 'Any' }));
    await user.click(screen.getByRole('button', { name: 'Apply' }));

    await waitFor(() =>
      expect(lastQuery()).toEqual({
        criteria_hash: 'any',
        latest_only: false,
        sort: 'scored_at',
        order: 'desc',
        limit: 50,
        with_total: true,
        min_score: 40,
        max_score: 70,
        band: 'adequate',
        agent: 'KubernetesAgent',
        alert_type: 'PodCrashLoop',
        missing_tool: 'kubectl-top',
      }),
    );
    expect(Object.fromEntries(search())).toEqual({
      criteria_hash: 'any',
      min_score: '40',
      max_score: '70',
      band: 'adequate',
      agent: 'KubernetesAgent',
      alert_type: 'PodCrashLoop',
      missing_tool: 'kubectl-top',
      latest_only: 'false',
    });
    const csv = new URL(screen.getByTestId('scores-csv').getAttribute('href') ?? '', 'http://x');
    expect(csv.pathname).toBe('/api/v1/scoring/scores');
    expect(csv.searchParams.get('format')).toBe('csv');
    expect(csv.searchParams.get('missing_tool')).toBe('kubectl-top');
    expect(csv.searchParams.get('min_score')).toBe('40');
    expect(csv.searchParams.has('cursor')).toBe(false);
  }, 90_000); // a cap for a loaded machine (it types into six fields), not a speed assertion

  it('offers the last 24 h / 7 d / 30 d and worst first in one click each, kept in the URL', async () => {
    const user = userEvent.setup();
    renderAt('/scores');
    await screen.findAllByTestId('score-row');

    const before = Date.now();
    await user.click(screen.getByRole('button', { name: 'Last 7 d' }));
    expect(search().get('range')).toBe('7d');
    await waitFor(() => expect(lastQuery()?.scored_after).toBeDefined());
    const start = Date.parse(lastQuery()!.scored_after!);
    const week = 7 * 24 * 3_600_000;
    expect(start).toBeGreaterThan(before - week - 120_000);
    expect(start).toBeLessThanOrEqual(Date.now() - week);

    await user.click(screen.getByRole('button', { name: 'Worst first' }));
    expect(search().get('sort')).toBe('total_score');
    expect(search().get('order')).toBe('asc');
    expect(search().get('range')).toBe('7d');
    await waitFor(() => expect(lastQuery()).toMatchObject({ sort: 'total_score', order: 'asc' }));
    expect(screen.getByTestId('scores-total')).toHaveTextContent('under the current criteria (claude-sonnet-4-6');

    await user.click(screen.getByRole('button', { name: 'All time' }));
    expect(search().get('range')).toBeNull();
  }, 60_000); // a cap for a loaded machine, not a speed assertion

  it('restores the filters, sort and page from the URL', async () => {
    renderAt('/scores?agent=KubernetesAgent&band=weak&min_score=10&latest_only=false&sort=total_score&order=asc&cursor=c1&cursor=c2');
    await screen.findAllByTestId('score-row');
    expect(lastQuery()).toEqual({
      criteria_hash: 'current',
      latest_only: false,
      sort: 'total_score',
      order: 'asc',
      limit: 50,
      with_total: true,
      min_score: 10,
      band: 'weak',
      agent: 'KubernetesAgent',
      cursor: 'c2',
    });
    expect(screen.getByLabelText('Agent')).toHaveValue('KubernetesAgent');
    expect(screen.getByLabelText('Min score')).toHaveValue(10);
    expect(screen.getByLabelText('Latest only')).not.toBeChecked();
    expect(screen.getByText('Page 3')).toBeInTheDocument();
  });

  it('sorts by a clicked column header, then reverses it, starting again at the first page', async () => {
    const user = userEvent.setup();
    renderAt('/scores?cursor=c1');
    await screen.findAllByTestId('score-row');
    await user.click(screen.getByRole('button', { name: 'Total' }));
    await waitFor(() => expect(lastQuery()).toMatchObject({ sort: 'total_score', order: 'desc' }));
    expect(lastQuery()?.cursor).toBeUndefined();
    await user.click(screen.getByRole('button', { name: 'Total' }));
    await waitFor(() => expect(lastQuery()).toMatchObject({ sort: 'total_score', order: 'asc' }));
    await user.click(screen.getByRole('button', { name: 'Tool relevance' }));
    await waitFor(() => expect(lastQuery()).toMatchObject({ sort: 'tool_relevance', order: 'desc' }));
    expect(search().get('sort')).toBe('tool_relevance');
  });

  it('pages forward with next_cursor and back through the stack of cursors', async () => {
    const user = userEvent.setup();
    mocked.fleetScores.mockImplementation(async (query) => {
      if (!query.cursor) return page([row('s-1', 90)], 'c1');
      if (query.cursor === 'c1') return page([row('s-2', 80)], 'c2');
      return page([row('s-3', 70)], null);
    });
    renderAt('/scores?agent=KubernetesAgent');
    await screen.findByText('s-1', { selector: '[data-testid=\"session-short-id\"]' });
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText('s-2', { selector: '[data-testid=\"session-short-id\"]' });
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText('s-3', { selector: '[data-testid=\"session-short-id\"]' });
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(search().getAll('cursor')).toEqual(['c1', 'c2']);
    expect(lastQuery()).toMatchObject({ agent: 'KubernetesAgent', cursor: 'c2' });

    await user.click(screen.getByRole('button', { name: 'Previous' }));
    await screen.findByText('s-2', { selector: '[data-testid=\"session-short-id\"]' });
    expect(search().getAll('cursor')).toEqual(['c1']);
    await user.click(screen.getByRole('button', { name: 'Previous' }));
    await screen.findByText('s-1', { selector: '[data-testid=\"session-short-id\"]' });
    expect(search().getAll('cursor')).toEqual([]);
    expect(screen.getByText('Page 1')).toBeInTheDocument();
  });

  it('says so when nothing matches, and shows the API error when the request is refused', async () => {
    mocked.fleetScores.mockResolvedValueOnce(page([]));
    const { unmount } = renderAt('/scores');
    expect(await screen.findByText('No scores match')).toBeInTheDocument();
    unmount();
    const { ApiError } = await import('../../../api/client');
    mocked.fleetScores.mockRejectedValueOnce(new ApiError(400, "band 'bogus' is not one of: failed, weak"));
    renderAt('/scores?band=bogus');
    expect(await screen.findByText(/band 'bogus' is not one of/)).toBeInTheDocument();
  });

  it('catches an invalid min or max before any request, in the form and in a URL', async () => {
    const user = userEvent.setup();
    const { unmount } = renderAt('/scores');
    await screen.findAllByTestId('score-row');
    const asked = mocked.fleetScores.mock.calls.length;
    await user.type(screen.getByLabelText('Min score'), '80');
    await user.type(screen.getByLabelText('Max score'), '20');
    expect(screen.getByText('At least the min score (80)')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Apply' })).toBeDisabled();
    await user.clear(screen.getByLabelText('Max score'));
    await user.type(screen.getByLabelText('Max score'), '101');
    expect(screen.getByText('A whole number from 0 to 100')).toBeInTheDocument();
    expect(mocked.fleetScores.mock.calls.length).toBe(asked);
    unmount();

    mocked.fleetScores.mockClear();
    renderAt('/scores?min_score=80&max_score=20');
    expect(await screen.findByText(/Fix the filters to see scores: At least the min score \(80\)/)).toBeInTheDocument();
    expect(mocked.fleetScores).not.toHaveBeenCalled();
  });

  it('offers the agents the scores have, names every criteria, and sends a date range and a matching spelling', async () => {
    const user = userEvent.setup();
    renderAt('/scores');
    await screen.findAllByTestId('score-row');
    expect(screen.getByTestId('scores-total')).toHaveTextContent('1 session matches');

    await user.click(screen.getByLabelText('Criteria'));
    const options = (await screen.findAllByRole('option')).map((o) => o.textContent);
    expect(options).toEqual([
      'Current: claude-sonnet-4-6 #aaaaaaaa',
      'Any',
      'claude-sonnet-4-6 #aaaaaaaa (current) · 10 sessions',
      'stricter-candidate #bbbbbbbb · 4 sessions',
    ]);
    await user.keyboard('{Escape}');
    await user.type(screen.getByRole('combobox', { name: 'Agent' }), 'netw');
    expect(await screen.findByRole('option', { name: 'NetworkAgent 12' })).toBeInTheDocument();
    await user.clear(screen.getByRole('combobox', { name: 'Agent' }));
    await user.type(screen.getByRole('combobox', { name: 'Agent' }), 'networkagent');
    await user.type(screen.getByLabelText('Scored from (UTC)'), '2026-11-02');
    await user.type(screen.getByLabelText('Scored before (UTC)'), '2026-11-09');
    await user.click(screen.getByRole('button', { name: 'Apply' }));

    await waitFor(() =>
      expect(lastQuery()).toMatchObject({
        agent: 'NetworkAgent',
        scored_after: '2026-11-02T00:00:00Z',
        scored_before: '2026-11-09T00:00:00Z',
      }),
    );
    expect(search().get('scored_after')).toBe('2026-11-02');
  }, 90_000); // a cap for a loaded machine (it types into several fields), not a speed assertion
});

describe('ScoresPage under a rubric of other dimensions', () => {
  const TRIAGE_HASH = 'c'.repeat(64);
  const triageRow = (sessionId: string, total: number) =>
    row(sessionId, total, { criteria_hash: TRIAGE_HASH, score_breakdown: { evidence: 7, diagnosis: 26, next_steps: 48 } });
  const headers = () => screen.getAllByTestId(/^dimension-column-/).map((cell) => cell.textContent);

  beforeEach(() => {
    mocked.currentCriteria.mockResolvedValue(makeCriteria(TRIAGE_HASH, TRIAGE_DIMENSIONS, 'triage'));
    mocked.criteriaInUse.mockResolvedValue([
      { ...CRITERIA[0], criteria_hash: TRIAGE_HASH },
      { ...CRITERIA[1], criteria_hash: 'b'.repeat(64) },
    ]);
    mocked.fleetScores.mockResolvedValue(page([triageRow('s-1', 81)]));
  });

  it("has a sortable column per dimension of the current rubric, each with its label and its own maximum", async () => {
    const user = userEvent.setup();
    renderAt('/scores');
    const [first] = await screen.findAllByTestId('score-row');
    await waitFor(() => expect(headers()).toEqual(['Evidence of 10', 'Diagnosis of 30', 'Next steps of 60']));
    expect(screen.queryByRole('button', { name: 'Logical flow' })).toBeNull();
    expect(within(first).getByText('48')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Next steps' }));
    await waitFor(() => expect(lastQuery()).toMatchObject({ sort: 'next_steps', order: 'desc' }));
    expect(search().get('sort')).toBe('next_steps');
  });

  it('sorts by the total when the URL names a dimension the rubric lacks, and never asks for it', async () => {
    renderAt('/scores?sort=logical_flow&order=asc&cursor=c1');
    await screen.findAllByTestId('score-row');
    expect(lastQuery()).toMatchObject({ sort: 'total_score', order: 'asc' });
    expect(lastQuery()?.cursor).toBeUndefined(); // a cursor of another sort would be refused
    expect(mocked.fleetScores.mock.calls.map(([query]) => query.sort)).not.toContain('logical_flow');
    expect(screen.getByRole('button', { name: 'Total' }).closest('th')).toHaveAttribute('aria-sort', 'ascending');
  });

  it("waits for the rubric before asking for a dimension sort of the URL, then asks for it", async () => {
    renderAt('/scores?sort=diagnosis');
    await screen.findAllByTestId('score-row');
    expect(mocked.fleetScores.mock.calls.map(([query]) => query.sort)).toEqual(['diagnosis']);
  });

  it("sorts by another criteria's dimension under that criteria, and lists every rubric's under any", async () => {
    mocked.criteria.mockImplementation(async (hash) => makeCriteria(hash, METHODOLOGY_DIMENSIONS));
    renderAt(`/scores?criteria_hash=${'b'.repeat(64)}&sort=logical_flow`);
    await screen.findAllByTestId('score-row');
    expect(lastQuery()).toMatchObject({ criteria_hash: 'b'.repeat(64), sort: 'logical_flow' });
    expect(headers()).toEqual(['Logical flow of 25', 'Consistency of 25', 'Tool relevance of 25', 'Synthesis quality of 25']);
  });

  it('lists the current rubric then the other rubrics in use when the criteria are any', async () => {
    mocked.criteria.mockImplementation(async (hash) => makeCriteria(hash, METHODOLOGY_DIMENSIONS));
    renderAt('/scores?criteria_hash=any&sort=consistency');
    await screen.findAllByTestId('score-row');
    expect(lastQuery()).toMatchObject({ criteria_hash: 'any', sort: 'consistency' });
    expect(headers().map((h) => h?.replace(/ of \d+$/, ''))).toEqual([
      'Evidence',
      'Diagnosis',
      'Next steps',
      'Logical flow',
      'Consistency',
      'Tool relevance',
      'Synthesis quality',
    ]);
    expect(mocked.criteria).toHaveBeenCalledWith('b'.repeat(64));
  });

  it('shows the keys the scores carry, in words, when the rubric cannot be read', async () => {
    mocked.currentCriteria.mockRejectedValue(new Error('unavailable'));
    renderAt('/scores');
    await screen.findAllByTestId('score-row');
    await waitFor(() => expect(headers()).toEqual(['Evidence', 'Diagnosis', 'Next steps']));
  });
});

describe('fleetScoresCsvUrl', () => {
  it('leaves out empty filters, the cursor and the page size, and asks for CSV', () => {
    expect(fleetScoresCsvUrl({ criteria_hash: 'current', agent: null, band: 'good', cursor: 'c1', limit: 50, sort: 'total_score' })).toBe(
      '/api/v1/scoring/scores?criteria_hash=current&band=good&sort=total_score&format=csv',
    );
  });
});

import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api } from '../../../api/client';
import type { RunCounts, RunSessionScore, RunSummary } from '../../../api/generated/schema';
import { RUN_POLL_MS } from '../queries';
import { render } from '../../../test/render';
import { makeEstimate, makeRun } from '../../../test/runs';
import { RunDetailPage } from '../RunDetailPage';
import { RunFormPage } from '../RunFormPage';
import { RunsPage } from '../RunsPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return {
    ...actual,
    api: {
      listRuns: vi.fn(),
      getRun: vi.fn(),
      listRunSessions: vi.fn(),
      getRunSummary: vi.fn(),
      scoreDistribution: vi.fn(),
      estimateRun: vi.fn(),
      startRun: vi.fn(),
      cancelRun: vi.fn(),
      currentCriteria: vi.fn(),
    },
  };
});

const mocked = vi.mocked(api, true);

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/runs" element={<RunsPage />} />
        <Route path="/runs/new" element={<RunFormPage />} />
        <Route path="/runs/:runId" element={<RunDetailPage />} />
      </Routes>
    </MemoryRouter>,
  );
}

const page = (...items: ReturnType<typeof makeRun>[]) => ({
  items,
  page: 1,
  page_size: 20,
  total_items: items.length,
  total_pages: 1,
});

function attempt(overrides: Partial<RunSessionScore> = {}): RunSessionScore {
  return {
    score_id: 'aaaaaaaa-0000-4000-8000-000000000001',
    session_id: 's-1',
    status: 'completed',
    total_score: 82,
    band: 'good',
    error_message: null,
    requested_at: '2026-11-20T09:00:02Z',
    scored_at: '2026-11-20T09:00:40Z',
    ...overrides,
  };
}

/** The run's counts as a page of its attempts carries them: by default, those of the attempts listed. */
const countsOf = (items: RunSessionScore[]): RunCounts => {
  const counts: RunCounts = { pending: 0, in_progress: 0, completed: 0, failed: 0, cancelled: 0, skipped: 0, skipped_by_reason: {} };
  for (const item of items) counts[item.status] += 1;
  return counts;
};

const sessionPage = (items: RunSessionScore[] = [], totalItems = items.length, counts: RunCounts = countsOf(items)) => ({
  items,
  counts,
  page: 1,
  page_size: 20,
  total_items: totalItems,
  total_pages: Math.max(1, Math.ceil(totalItems / 20)),
});

const judge = (llm_provider: string) => ({ criteria_hash: 'c'.repeat(64), llm_provider, llm_model: 'm', criteria_content: {}, created_at: null, rubric: null });

const BANDS = ['failed', 'weak', 'adequate', 'good', 'near_perfect'];

function summary(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    run_id: makeRun().run_id,
    completed: 0,
    average_score: null,
    bands: BANDS.map((band) => ({ band, sessions: 0 })),
    first_scores: 0,
    improved: 0,
    worsened: 0,
    unchanged: 0,
    movers: [],
    ...overrides,
  };
}

beforeEach(() => {
  vi.resetAllMocks();
  mocked.listRunSessions.mockResolvedValue(sessionPage());
  mocked.getRunSummary.mockResolvedValue(summary());
  mocked.scoreDistribution.mockRejectedValue(new Error('bands not needed here'));
  mocked.currentCriteria.mockResolvedValue(judge('anthropic'));
});

afterEach(() => {
  vi.useRealTimers();
});

describe('RunFormPage', () => {
  it('estimates first, shows the estimate, and starts the same request only when confirmed', async () => {
    mocked.estimateRun.mockResolvedValue(makeEstimate());
    mocked.startRun.mockResolvedValue(makeRun({ status: 'planning' }));
    mocked.getRun.mockResolvedValue(makeRun({ status: 'planning' }));
    renderAt('/runs/new?which=not_current_criteria');

    expect(screen.getByTestId('which')).toHaveTextContent('not scored with the current criteria');
    fireEvent.change(screen.getByLabelText(/Max sessions/), { target: { value: '50' } });
    fireEvent.change(screen.getByLabelText(/^Agent/), { target: { value: 'KubernetesAgent' } });
    await userEvent.click(screen.getByRole('button', { name: 'Estimate' }));

    const estimate = await screen.findByTestId('run-estimate');
    expect(within(estimate).getByTestId('estimate-selected')).toHaveTextContent('3');
    expect(within(estimate).getByTestId('estimate-cost')).toHaveTextContent('$0.18');
    expect(within(estimate).getByTestId('estimate-duration')).toHaveTextContent('45 s');
    expect(within(estimate).getByTestId('estimate-tokens')).toHaveTextContent('36,000 / 4,500');
    expect(within(estimate).getByTestId('estimate-skipped-reasons')).toHaveTextContent('1 skipped: not completed');
    expect(within(estimate).getAllByRole('link').map((a) => a.textContent)).toEqual(['s-1', 's-2', 's-3']);
    expect(mocked.startRun).not.toHaveBeenCalled();
    const draft = mocked.estimateRun.mock.calls[0]?.[0];
    expect(draft).toMatchObject({
      max_sessions: 50,
      mode: 'online',
      selection: { which: 'not_current_criteria', agent: 'KubernetesAgent', score_below: null, session_ids: null },
    });

    await userEvent.click(within(estimate).getByRole('button', { name: 'Start run of 3 sessions' }));
    expect(mocked.startRun).toHaveBeenCalledWith(draft);
    // the new run's own page
    expect(await screen.findByRole('heading', { name: makeRun().name })).toBeInTheDocument();
    expect(screen.getByTestId('run-status')).toHaveTextContent('planning');
  });

  it('offers batch mode only to a judge with a batch API, and says why before any estimate', async () => {
    mocked.currentCriteria.mockResolvedValue(judge('bedrock'));
    mocked.estimateRun.mockResolvedValue(makeEstimate());
    renderAt('/runs/new');

    const batch = screen.getByRole('radio', { name: 'Batch (half price, within 24 h)' });
    await waitFor(() => expect(batch).toBeDisabled());
    expect(screen.getByTestId('batch-unavailable')).toHaveTextContent(
      "Batch mode needs a judge with a batch API (anthropic: Message Batches, openai: the Batch API, google: Gemini batch mode); this deployment's judge is bedrock.",
    );
    expect(screen.getByRole('radiogroup', { name: 'Mode' })).toHaveAccessibleDescription(/needs a judge with a batch API/);
    await userEvent.click(screen.getByRole('button', { name: 'Estimate' }));
    await screen.findByTestId('run-estimate');
    expect(mocked.estimateRun.mock.calls[0]?.[0]).toMatchObject({ mode: 'online' });
  });

  it('lets the Anthropic judge run in batch mode', async () => {
    mocked.estimateRun.mockResolvedValue(makeEstimate());
    renderAt('/runs/new');
    await waitFor(() => expect(mocked.currentCriteria).toHaveBeenCalled());

    const batch = screen.getByRole('radio', { name: 'Batch (half price, within 24 h)' });
    expect(batch).toBeEnabled();
    await userEvent.click(batch);
    await userEvent.click(screen.getByRole('button', { name: 'Estimate' }));
    await screen.findByTestId('run-estimate');
    expect(mocked.estimateRun.mock.calls[0]?.[0]).toMatchObject({ mode: 'batch' });
    expect(screen.queryByTestId('batch-unavailable')).not.toBeInTheDocument();
  });

  it.each(['openai', 'google'])('offers batch mode to the %s judge (its batch API)', async (provider) => {
    mocked.currentCriteria.mockResolvedValue(judge(provider));
    renderAt('/runs/new');
    await waitFor(() => expect(mocked.currentCriteria).toHaveBeenCalled());

    await waitFor(() => expect(screen.getByRole('radio', { name: 'Batch (half price, within 24 h)' })).toBeEnabled());
    expect(screen.queryByTestId('batch-unavailable')).not.toBeInTheDocument();
  });

  it('drops the estimate when the request changes, so what starts is what was estimated', async () => {
    mocked.estimateRun.mockResolvedValue(makeEstimate());
    renderAt('/runs/new');
    await userEvent.click(screen.getByRole('button', { name: 'Estimate' }));
    expect(await screen.findByTestId('run-estimate')).toBeInTheDocument();

    fireEvent.change(screen.getByLabelText(/^Alert type/), { target: { value: 'PodOOMKilled' } });
    expect(screen.queryByTestId('run-estimate')).not.toBeInTheDocument();
  });

  it('says what is wrong with the form without asking the API', async () => {
    renderAt('/runs/new?which=score_below&score_below=0');
    await userEvent.click(screen.getByRole('button', { name: 'Estimate' }));

    expect(screen.getByText('Score below must be a whole number from 1 to 100.')).toBeInTheDocument();
    expect(mocked.estimateRun).not.toHaveBeenCalled();
  });

  it("shows the API's reason when the estimate is refused, and offers no start when nothing is selected", async () => {
    mocked.estimateRun.mockRejectedValueOnce(new ApiError(400, 'max_sessions 5000 is above the limit of 1000'));
    mocked.estimateRun.mockResolvedValueOnce(makeEstimate({ sessions_selected: 0, sample_session_ids: [] }));
    renderAt('/runs/new?max_sessions=5000');
    await userEvent.click(screen.getByRole('button', { name: 'Estimate' }));
    expect(
      await screen.findByText('Could not estimate the run: max_sessions 5000 is above the limit of 1000'),
    ).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Estimate' }));
    expect(await screen.findByText('Nothing to score with this selection.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Start run/ })).not.toBeInTheDocument();
  });
});

describe('RunsPage', () => {
  it('refreshes the progress while a run is active and stops once none is', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    mocked.listRuns.mockResolvedValueOnce(page(makeRun()));
    mocked.listRuns.mockResolvedValue(
      page(makeRun({ status: 'completed', counts: { pending: 0, in_progress: 0, completed: 3, failed: 0, cancelled: 0, skipped: 1 } })),
    );
    renderAt('/runs');

    const row = await screen.findByTestId('run-row');
    expect(within(row).getByTestId('run-progress-text')).toHaveTextContent('1 scored of 3 · 2 to go');
    expect(within(row).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '1');
    expect(within(row).getByRole('progressbar')).toHaveAttribute('aria-valuemax', '3');
    expect(within(row).getByTestId('run-status')).toHaveTextContent('running');
    // the run's name is a link to its page (open it in a new tab, copy its address)
    expect(within(row).getByRole('link', { name: 're-score after the prompt change' })).toHaveAttribute(
      'href',
      '/runs/11111111-2222-4333-8444-555555555555',
    );

    await vi.advanceTimersByTimeAsync(RUN_POLL_MS);
    expect(await within(row).findByText('3 scored of 3')).toBeInTheDocument();
    expect(within(row).getByTestId('run-status')).toHaveTextContent('completed');
    const calls = mocked.listRuns.mock.calls.length;
    await vi.advanceTimersByTimeAsync(RUN_POLL_MS * 3);
    expect(mocked.listRuns.mock.calls.length).toBe(calls);
  });

  it('keeps the completed, failed and cancelled attempts of a cancelled run apart: it is not all done', async () => {
    const counts = { pending: 0, in_progress: 0, completed: 8, failed: 0, cancelled: 52, skipped: 0 };
    mocked.listRuns.mockResolvedValue(page(makeRun({ status: 'cancelled', counts })));
    renderAt('/runs');

    const row = await screen.findByTestId('run-row');
    expect(within(row).getByTestId('run-progress-text')).toHaveTextContent('8 scored, 52 cancelled of 60');
    // the bar: a completed part and a (grey) cancelled part, each its share of the attempts
    expect(within(row).getByTestId('progress-completed')).toHaveAttribute('data-share', String(8 / 60));
    expect(within(row).getByTestId('progress-cancelled')).toHaveAttribute('data-share', String(52 / 60));
    expect(within(row).queryByTestId('progress-failed')).toBeNull();
    expect(within(row).getByRole('progressbar')).toHaveAttribute('aria-valuetext', '8 scored, 52 cancelled of 60');
  });

  it('shows an empty state and the way to start a run', async () => {
    mocked.listRuns.mockResolvedValue(page());
    renderAt('/runs');

    expect(await screen.findByText('No runs yet')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'New run' })).toHaveAttribute('href', '/runs/new');
  });
});

describe('RunDetailPage', () => {
  it('shows counts, cost and time left, and cancels only after confirmation', async () => {
    const run = makeRun();
    mocked.getRun.mockResolvedValue(run);
    mocked.cancelRun.mockImplementation(async () => {
      const cancelled = makeRun({
        status: 'cancelled',
        finished_at: '2026-11-20T09:01:00Z',
        counts: { pending: 0, in_progress: 1, completed: 1, failed: 0, cancelled: 1, skipped: 1 },
      });
      mocked.getRun.mockResolvedValue(cancelled);
      return cancelled;
    });
    renderAt(`/runs/${run.run_id}`);

    expect(await screen.findByRole('heading', { name: run.name })).toBeInTheDocument();
    expect(screen.getByTestId('count-completed')).toHaveTextContent('1');
    expect(screen.getByTestId('count-pending')).toHaveTextContent('1');
    expect(screen.getByTestId('run-cost')).toHaveTextContent('$0.05');
    expect(screen.getByText('of at most $25.00', { exact: false })).toBeInTheDocument();
    expect(screen.getByText('2 min')).toBeInTheDocument();
    expect(screen.getByText('Skipped: 1 not completed')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Cancel run' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Keep running' }));
    expect(mocked.cancelRun).not.toHaveBeenCalled();

    await userEvent.click(await screen.findByRole('button', { name: 'Cancel run' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Yes, cancel run' }));
    expect(mocked.cancelRun).toHaveBeenCalledWith(run.run_id);
    expect(await screen.findByText('cancelled')).toBeInTheDocument();
    expect(screen.getByTestId('count-cancelled')).toHaveTextContent('1');
    expect(screen.queryByText('Cancel run')).not.toBeInTheDocument();
  });

  it('says why when the run cannot be loaded', async () => {
    mocked.getRun.mockRejectedValue(new ApiError(404, 'no scoring run 1234'));
    renderAt('/runs/1234');

    expect(await screen.findByText('Could not load the run: no scoring run 1234')).toBeInTheDocument();
  });
  it("lists the run's sessions, read again whenever the run's summary changes, so the two never disagree", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const pending = attempt({ score_id: 'aaaaaaaa-0000-4000-8000-000000000002', session_id: 's-2', status: 'pending', total_score: null, band: null, scored_at: null });
    const failed = { ...pending, status: 'failed' as const, error_message: 'the judge answered 529 three times' };
    const running = makeRun({ counts: { pending: 1, in_progress: 0, completed: 1, failed: 0, cancelled: 0, skipped: 0 } });
    mocked.getRun.mockResolvedValue(running);
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt(), pending]));
    renderAt(`/runs/${running.run_id}`);

    const rows = await screen.findAllByTestId('run-session-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByRole('link', { name: 's-1' })).toHaveAttribute('href', '/sessions/s-1');
    expect(within(rows[0]!).getByTestId('score-badge')).toHaveAttribute('data-band', 'good');
    expect(within(rows[0]!).getByTestId('score-badge')).toHaveTextContent('82');
    expect(within(rows[1]!).getByTestId('run-session-status')).toHaveTextContent('pending');
    expect(within(rows[1]!).queryByTestId('score-badge')).not.toBeInTheDocument();
    expect(mocked.listRunSessions).toHaveBeenCalledWith(running.run_id, 1, 20, null);

    // the run's counts did not change: its attempts are not read again
    const unchanged = mocked.listRunSessions.mock.calls.length;
    await vi.advanceTimersByTimeAsync(RUN_POLL_MS * 2);
    expect(mocked.listRunSessions.mock.calls.length).toBe(unchanged);

    // the run ended (one attempt failed): the table is read again and shows what the summary says
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt(), failed]));
    mocked.getRun.mockResolvedValue(
      makeRun({ status: 'completed', finished_at: '2026-11-20T09:02:00Z', counts: { pending: 0, in_progress: 0, completed: 1, failed: 1, cancelled: 0, skipped: 0 } }),
    );
    await vi.advanceTimersByTimeAsync(RUN_POLL_MS);
    expect(await screen.findByText('the judge answered 529 three times')).toBeInTheDocument();
    expect(screen.getByTestId('count-failed')).toHaveTextContent('1');
    expect(within(screen.getAllByTestId('run-session-row')[1]!).getByTestId('run-session-status')).toHaveTextContent('failed');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Cancel run' })).not.toBeInTheDocument());
    const calls = mocked.listRunSessions.mock.calls.length;
    await vi.advanceTimersByTimeAsync(RUN_POLL_MS * 3);
    expect(mocked.listRunSessions.mock.calls.length).toBe(calls);
  });

  it('shows the counts read with the table when they are fresher than the run it polled, so the two agree', async () => {
    const queued = (n: number) => attempt({ score_id: `aaaaaaaa-0000-4000-8000-00000000000${n}`, session_id: `s-${n}`, status: 'pending', total_score: null, band: null, scored_at: null });
    const done = (n: number) => attempt({ score_id: `aaaaaaaa-0000-4000-8000-00000000000${n}`, session_id: `s-${n}` });
    // the run was read before two attempts ended; its attempts page after
    mocked.getRun.mockResolvedValue(makeRun({ counts: { pending: 5, in_progress: 0, completed: 0, failed: 0, cancelled: 0, skipped: 0 } }));
    mocked.listRunSessions.mockResolvedValue(sessionPage([done(1), done(2), queued(3), queued(4), queued(5)]));
    renderAt(`/runs/${makeRun().run_id}`);

    expect(await screen.findAllByTestId('run-session-row')).toHaveLength(5);
    await waitFor(() => expect(screen.getByTestId('count-completed')).toHaveTextContent('2'));
    expect(screen.getByTestId('count-pending')).toHaveTextContent('3');
    expect(screen.getByTestId('run-progress-text')).toHaveTextContent('2 scored of 5 · 3 to go');
    const filter = screen.getByRole('group', { name: 'Show the sessions whose attempt is' });
    expect(within(filter).getAllByRole('button').map((b) => b.textContent)).toEqual(['All 5', 'Pending 3', 'Completed 2']);
  });

  it("keeps the run's counts when they are fresher than the ones the table was read with", async () => {
    const queued = attempt({ score_id: 'aaaaaaaa-0000-4000-8000-000000000002', session_id: 's-2', status: 'pending', total_score: null, band: null, scored_at: null });
    // the table's page was read with one attempt ended; the run, read after, counts two
    mocked.getRun.mockResolvedValue(makeRun({ counts: { pending: 0, in_progress: 0, completed: 2, failed: 0, cancelled: 0, skipped: 0 } }));
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt(), queued]));
    renderAt(`/runs/${makeRun().run_id}`);

    expect(await screen.findAllByTestId('run-session-row')).toHaveLength(2);
    expect(screen.getByTestId('count-completed')).toHaveTextContent('2');
    expect(screen.getByTestId('count-pending')).toHaveTextContent('0');
    expect(screen.getByTestId('run-progress-text')).toHaveTextContent('2 scored of 2');
  });

  it("filters the run's sessions by status, with each status's count, in the URL", async () => {
    const run = makeRun({ status: 'cancelled', counts: { pending: 0, in_progress: 0, completed: 8, failed: 0, cancelled: 52, skipped: 0 } });
    mocked.getRun.mockResolvedValue(run);
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt()], 60));
    renderAt(`/runs/${run.run_id}`);

    const filter = await screen.findByRole('group', { name: 'Show the sessions whose attempt is' });
    expect(within(filter).getAllByRole('button').map((b) => b.textContent)).toEqual(['All 60', 'Completed 8', 'Cancelled 52']);
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt({ status: 'cancelled', total_score: null, band: null, error_message: 'cancelled by alice' })], 52));
    await userEvent.click(within(filter).getByRole('button', { name: 'Cancelled 52' }));

    expect(mocked.listRunSessions).toHaveBeenLastCalledWith(run.run_id, 1, 20, 'cancelled');
    expect(await screen.findByText('cancelled by alice')).toBeInTheDocument();
    expect(within(filter).getByRole('button', { name: 'Cancelled 52' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('opens with the status filter a URL names', async () => {
    const run = makeRun({ status: 'completed' });
    mocked.getRun.mockResolvedValue(run);
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt({ status: 'failed', total_score: null, band: null })], 1));
    renderAt(`/runs/${run.run_id}?status=failed`);

    expect(await screen.findAllByTestId('run-session-row')).toHaveLength(1);
    expect(mocked.listRunSessions).toHaveBeenCalledWith(run.run_id, 1, 20, 'failed');
  });

  it("pages through the run's sessions", async () => {
    const run = makeRun({ status: 'completed' });
    mocked.getRun.mockResolvedValue(run);
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt()], 45));
    renderAt(`/runs/${run.run_id}`);

    expect(await screen.findByText('1–20 of 45')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    expect(mocked.listRunSessions).toHaveBeenLastCalledWith(run.run_id, 2, 20, null);
  });

  it('says the run had already finished when the cancel lost the race to its end, without an error', async () => {
    const run = makeRun();
    mocked.getRun.mockResolvedValue(run);
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt()], 1));
    mocked.cancelRun.mockImplementation(async () => {
      mocked.getRun.mockResolvedValue(makeRun({ status: 'completed', finished_at: '2026-11-20T09:01:00Z' }));
      throw new ApiError(400, "run '1111' has already ended (completed); nothing to cancel");
    });
    renderAt(`/runs/${run.run_id}`);

    await userEvent.click(await screen.findByRole('button', { name: 'Cancel run' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Yes, cancel run' }));

    expect(await screen.findByTestId('cancel-too-late')).toHaveTextContent(
      'The run had already finished before the cancel reached it: nothing was left to cancel.',
    );
    expect(screen.queryByText(/Could not cancel the run/)).not.toBeInTheDocument();
    expect(screen.getByTestId('run-status')).toHaveTextContent('completed');
  });

  it('shows a refused cancel of a run still going as an error', async () => {
    const run = makeRun();
    mocked.getRun.mockResolvedValue(run);
    mocked.listRunSessions.mockResolvedValue(sessionPage([attempt()], 1));
    mocked.cancelRun.mockRejectedValue(new ApiError(400, 'something else is wrong'));
    renderAt(`/runs/${run.run_id}`);

    await userEvent.click(await screen.findByRole('button', { name: 'Cancel run' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Yes, cancel run' }));

    expect(await screen.findByText('Could not cancel the run: something else is wrong')).toBeInTheDocument();
    expect(screen.queryByTestId('cancel-too-late')).not.toBeInTheDocument();
  });

  it('says so when the run has no session yet', async () => {
    mocked.getRun.mockResolvedValue(makeRun({ status: 'planning' }));
    renderAt(`/runs/${makeRun().run_id}`);

    expect(await screen.findByText('No session queued yet: the run is still selecting them.')).toBeInTheDocument();
  });
});

describe('run titles and summary', () => {
  it('titles an unnamed run by its selection and day, and a named one by its name, never by its id', async () => {
    const unnamed = makeRun({ run_id: '99999999-2222-4333-8444-555555555555', name: 'all run by seed', started_by: 'seed', selection: { which: 'all', agent: 'KubernetesAgent' } });
    mocked.listRuns.mockResolvedValue(page(makeRun(), unnamed));
    renderAt('/runs');

    const rows = await screen.findAllByTestId('run-row');
    expect(within(rows[0]).getByRole('link')).toHaveTextContent('re-score after the prompt change');
    expect(within(rows[0]).getByTestId('run-subtitle')).toHaveTextContent('not scored with the current criteria · online · max 200');
    const title = within(rows[1]).getByRole('link');
    expect(title.textContent).toMatch(/^All sessions, agent KubernetesAgent · .*2026/);
    expect(title.textContent).not.toContain('9999');
  });

  it("summarises the run's scores by band and lists the largest movers against their previous score", async () => {
    mocked.getRun.mockResolvedValue(makeRun({ status: 'completed' }));
    mocked.getRunSummary.mockResolvedValue(
      summary({
        completed: 4,
        average_score: 61.5,
        bands: BANDS.map((band) => ({ band, sessions: band === 'failed' ? 1 : band === 'good' ? 3 : 0 })),
        first_scores: 1,
        improved: 1,
        worsened: 1,
        unchanged: 1,
        movers: [
          { session_id: 'upload:aaaabbbb-cccc-4ddd-8eee-ffff00001111', total_score: 20, band: 'failed', previous_score: 80, previous_band: 'good', change: -60, same_criteria: false },
          { session_id: 's-2', total_score: 85, band: 'good', previous_score: 70, previous_band: 'adequate', change: 15, same_criteria: true },
        ],
      }),
    );
    renderAt(`/runs/${makeRun().run_id}`);

    const card = await screen.findByTestId('run-summary');
    expect(within(card).getByTestId('run-summary-average')).toHaveTextContent('4 scored, average 61.5.');
    expect(within(card).getAllByTestId('run-summary-band').map((b) => [b.dataset.band, b.dataset.sessions])).toEqual([
      ['failed', '1'],
      ['good', '3'],
    ]);
    expect(within(card).getByRole('img')).toHaveAccessibleName('Scores by band: Failed 1, Good 3');
    expect(within(card).getByTestId('run-summary-moves')).toHaveTextContent(
      "Against each session's previous score: 1 improved, 1 got worse, 1 unchanged, 1 scored for the first time.",
    );
    const movers = within(card).getAllByTestId('run-mover');
    expect(within(movers[0]).getByRole('link', { name: 'aaaabbbb' })).toHaveAttribute(
      'href',
      `/sessions/${encodeURIComponent('upload:aaaabbbb-cccc-4ddd-8eee-ffff00001111')}`,
    );
    expect(movers[0]).toHaveTextContent('80* (Good)20 (Failed)−60');
    expect(movers[1]).toHaveTextContent('70 (Adequate)85 (Good)+15');
    expect(within(card).getByText('* the previous score was made under other criteria.')).toBeInTheDocument();
  });

  it('reads the summary again when the run\'s counts change, so it keeps step with the progress', async () => {
    const first = makeRun();
    const later = makeRun({ counts: { ...first.counts, pending: 0, completed: 2 } });
    mocked.getRun.mockResolvedValueOnce(first).mockResolvedValue(later);
    renderAt(`/runs/${first.run_id}`);

    await screen.findByTestId('run-summary');
    await waitFor(() => expect(mocked.getRunSummary.mock.calls.length).toBeGreaterThanOrEqual(2), { timeout: RUN_POLL_MS * 3 });
  });
});

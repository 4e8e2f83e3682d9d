import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api } from '../../../api/client';
import type { CriteriaUsage, SessionDetail, SessionScore, SessionScoring } from '../../../api/generated/schema';
import { makeScore } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { SessionDetailPage } from '../SessionDetailPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return {
    ...actual,
    api: {
      getSession: vi.fn(),
      getSessionScoring: vi.fn(),
      requestScore: vi.fn(),
      getLabels: vi.fn(),
      putLabel: vi.fn(),
      criteriaInUse: vi.fn(),
    },
  };
});

const mocked = vi.mocked(api, true);

const CURRENT = 'a'.repeat(64);
const CANDIDATE = 'b'.repeat(64);
const criteria: CriteriaUsage[] = [
  { criteria_hash: CURRENT, llm_provider: 'anthropic', llm_model: 'claude-sonnet-4-6', created_at: '2026-11-01T00:00:00Z', completed_sessions: 10, is_current: true },
  { criteria_hash: CANDIDATE, llm_provider: 'anthropic', llm_model: 'stricter-candidate', created_at: '2026-11-10T00:00:00Z', completed_sessions: 4, is_current: false },
];

const session: SessionDetail = {
  session_id: 'sess-1',
  source: null,
  status: 'completed',
  alert_type: 'PodOOMKilled',
  title: 'PodOOMKilled',
  agent_type: 'KubernetesAgent',
  author: 'alertmanager',
  started_at: null,
  completed_at: null,
  alert: {},
  available_tools: [],
  stages: [],
  final_analysis: null,
  error: null,
  recording_author: null,
  steps_total: 0,
  steps_shown: 0,
  next_steps_offset: null,
};

const scoring = (attempts: SessionScore[], current: SessionScore | null = null): SessionScoring => ({
  session_id: 'sess-1',
  current,
  latest: attempts[0] ?? null,
  attempts,
});
const NONE = scoring([]);

const renderPage = () =>
  render(
    <MemoryRouter initialEntries={['/sessions/sess-1']}>
      <Routes>
        <Route path="/sessions/:sessionId" element={<SessionDetailPage />} />
      </Routes>
    </MemoryRouter>,
  );

beforeEach(() => {
  vi.resetAllMocks();
  vi.useFakeTimers({ shouldAdvanceTime: true });
  mocked.getSession.mockResolvedValue(session);
  mocked.getSessionScoring.mockResolvedValue(NONE);
  mocked.criteriaInUse.mockResolvedValue(criteria);
  mocked.getLabels.mockResolvedValue({ session_id: 'sess-1', current: [], history: [], reference: null, reference_history: [] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionDetailPage', () => {
  it('scores a session and follows the attempt until the judge is done', async () => {
    const queued = makeScore({ status: 'pending', total_score: null, score_breakdown: null, scored_at: null });
    const done = makeScore({ total_score: 81 });
    mocked.requestScore.mockResolvedValue(queued);
    renderPage();

    expect(await screen.findByText(/^Not scored under the current criteria/)).toBeInTheDocument();
    mocked.getSessionScoring
      .mockResolvedValueOnce(scoring([{ ...queued, status: 'in_progress' }]))
      .mockResolvedValue(scoring([done], done));
    await userEvent.click(screen.getByRole('button', { name: 'Score Session' }));

    expect(mocked.requestScore).toHaveBeenCalledWith('sess-1', false);
    expect(await screen.findByRole('button', { name: 'Queued…' })).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(1500));
    expect(await screen.findByRole('button', { name: 'Scoring…' })).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(1500));

    expect(await screen.findByTestId('total-score')).toHaveTextContent('81/100');
    expect(screen.getByRole('button', { name: 'Re-score' })).toBeEnabled();
    const polls = mocked.getSessionScoring.mock.calls.length;
    await act(() => vi.advanceTimersByTimeAsync(6000));
    expect(mocked.getSessionScoring.mock.calls.length).toBe(polls); // a finished attempt is not polled any more
  }, 20_000); // a cap for a loaded machine (the page renders several times), not a speed assertion

  it('shows the score under the criteria in force first, names the other criteria and labels against the current', async () => {
    const ours = makeScore({ total_score: 77 });
    const candidate = makeScore({
      score_id: '00000000-0000-4000-8000-000000000009',
      criteria_hash: CANDIDATE,
      is_current_criteria: false,
      total_score: 89,
      scored_at: '2026-11-21T09:00:30Z',
    });
    mocked.getSessionScoring.mockResolvedValue(scoring([candidate, ours], ours));
    renderPage();

    expect(await screen.findByTestId('total-score')).toHaveTextContent('77/100');
    expect(await screen.findByTestId('score-criteria')).toHaveTextContent('claude-sonnet-4-6 #aaaaaaaa');
    const other = screen.getByTestId('other-criteria');
    expect(within(other).getByText('stricter-candidate #bbbbbbbb')).toBeInTheDocument();
    expect(within(other).getByTestId('score-badge')).toHaveTextContent('89*');
    expect(screen.getByTestId('label-judge')).toHaveTextContent('Judge (claude-sonnet-4-6 #aaaaaaaa, current): 77');
    expect(screen.getByText(/stricter-candidate #bbbbbbbb/, { selector: 'td' })).toBeInTheDocument();
    expect(screen.queryByText(/older/)).toBeNull();
  });

  it('keeps a completed score and Re-score when a later attempt was cancelled with its run, saying so beside it', async () => {
    const done = makeScore({ total_score: 83 });
    const cancelled = makeScore({
      score_id: '00000000-0000-4000-8000-000000000010',
      status: 'cancelled',
      total_score: null,
      score_breakdown: null,
      scored_at: null,
      error_message: 'cancelled by operator',
    });
    mocked.getSessionScoring.mockResolvedValue(scoring([cancelled, done], done));
    renderPage();

    expect(await screen.findByTestId('total-score')).toHaveTextContent('83/100');
    expect(screen.getByRole('button', { name: 'Re-score' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Score Session' })).not.toBeInTheDocument();
    expect(screen.getByTestId('later-attempt')).toHaveTextContent('Latest attempt cancelled');
  });

  it('puts the verdict before the labelling', async () => {
    const done = makeScore({ total_score: 83 });
    mocked.getSessionScoring.mockResolvedValue(scoring([done], done));
    renderPage();

    const verdict = await screen.findByTestId('score-detail');
    const labelling = screen.getByRole('region', { name: 'labelling' });
    expect(verdict.compareDocumentPosition(labelling) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('says why the score request was refused', async () => {
    mocked.requestScore.mockRejectedValue(new ApiError(503, 'scoring is disabled (SCORING_ENABLED=false)'));
    renderPage();

    await userEvent.click(await screen.findByRole('button', { name: 'Score Session' }));

    expect(await screen.findByText('scoring is disabled (SCORING_ENABLED=false)')).toBeInTheDocument();
  });

  it('says who uploaded a session, and apart from it the author its document names', async () => {
    mocked.getSession.mockResolvedValue({ ...session, source: 'upload', author: 'olga', recording_author: 'ceo@example.com' });
    renderPage();

    expect(await screen.findByText(/submitted by olga/)).toBeInTheDocument();
    expect(screen.getByText(/recorded by ceo@example\.com/)).toBeInTheDocument();
    expect(screen.queryByText(/submitted by ceo/)).toBeNull();
  });

  it('says an unknown id is not found and offers only what can work', async () => {
    mocked.getSession.mockRejectedValue(new ApiError(404, 'session sess-1 not found'));
    renderPage();

    expect(await screen.findByRole('heading', { name: 'No session with this id' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Score Session' })).toBeNull();
    expect(screen.queryByText('Human labels')).toBeNull();
    expect(screen.queryByText(/Not scored/i)).toBeNull();
    expect(screen.getByRole('link', { name: 'All sessions' })).toHaveAttribute('href', '/');
  });

  it('shows the kept scores of a session its source no longer has, without Score Session', async () => {
    mocked.getSession.mockRejectedValue(new ApiError(404, 'session sess-1 not found'));
    const ours = makeScore({ total_score: 70 });
    mocked.getSessionScoring.mockResolvedValue(scoring([ours], ours));
    renderPage();

    expect(await screen.findByTestId('total-score')).toHaveTextContent('70/100');
    expect(screen.getByTestId('not-at-source')).toHaveTextContent('no longer has this session');
    expect(screen.queryByRole('button', { name: /Score Session|Re-score/ })).toBeNull();
  });

  it('says the API cannot be reached, with a retry and nothing that needs it', async () => {
    mocked.getSession.mockRejectedValue(new ApiError(null, 'the API could not be reached (fetch failed)'));
    mocked.getSessionScoring.mockRejectedValue(new ApiError(null, 'the API could not be reached (fetch failed)'));
    renderPage();

    expect(await screen.findByText(/Could not reach the scoring API: the API could not be reached/, {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Score Session' })).toBeNull();
    expect(screen.queryByText('Human labels')).toBeNull();
    expect(screen.queryByText(/Not scored/i)).toBeNull();
  }, 20_000);
});

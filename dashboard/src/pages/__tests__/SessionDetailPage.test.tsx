import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api } from '../../api/client';
import type { SessionDetail } from '../../api/generated/schema';
import { makeScore } from '../../test/fixtures';
import { render } from '../../test/render';
import { SessionDetailPage } from '../SessionDetailPage';

vi.mock('../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../api/client')>();
  return {
    ...actual,
    api: { getSession: vi.fn(), getLatestScore: vi.fn(), getScoreHistory: vi.fn(), requestScore: vi.fn(), getLabels: vi.fn(), putLabel: vi.fn() },
  };
});

const mocked = vi.mocked(api, true);

const session: SessionDetail = {
  session_id: 'sess-1',
  source: null,
  status: 'completed',
  alert_type: 'PodOOMKilled',
  agent_type: 'KubernetesAgent',
  author: 'alertmanager',
  started_at: null,
  completed_at: null,
  alert: {},
  available_tools: [],
  stages: [],
  final_analysis: null,
  error: null,
};

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
  mocked.getScoreHistory.mockResolvedValue([]);
  mocked.getLabels.mockResolvedValue({ session_id: 'sess-1', current: [], history: [], reference: null, reference_history: [] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionDetailPage', () => {
  it('scores a session and follows the attempt until the judge is done', async () => {
    const queued = makeScore({ status: 'pending', total_score: null, score_breakdown: null, scored_at: null });
    const done = makeScore({ total_score: 81 });
    mocked.getLatestScore.mockResolvedValueOnce(null);
    mocked.requestScore.mockResolvedValue(queued);
    renderPage();

    expect(await screen.findByText('Not scored yet')).toBeInTheDocument();
    mocked.getLatestScore.mockResolvedValueOnce({ ...queued, status: 'in_progress' }).mockResolvedValue(done);
    mocked.getScoreHistory.mockResolvedValue([done]);
    await userEvent.click(screen.getByRole('button', { name: 'Score Session' }));

    expect(mocked.requestScore).toHaveBeenCalledWith('sess-1', false);
    expect(await screen.findByRole('button', { name: 'Queued…' })).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(1500));
    expect(await screen.findByRole('button', { name: 'Scoring…' })).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(1500));

    expect(await screen.findByTestId('total-score')).toHaveTextContent('81/100');
    expect(screen.getByRole('button', { name: 'Re-score' })).toBeEnabled();
    const polls = mocked.getLatestScore.mock.calls.length;
    await act(() => vi.advanceTimersByTimeAsync(6000));
    expect(mocked.getLatestScore.mock.calls.length).toBe(polls); // a finished attempt is not polled any more
  }, 20_000); // a cap for a loaded machine (the page renders several times), not a speed assertion

  it('says why the score request was refused', async () => {
    mocked.getLatestScore.mockResolvedValue(null);
    mocked.requestScore.mockRejectedValue(new ApiError(503, 'scoring is disabled (SCORING_ENABLED=false)'));
    renderPage();

    await userEvent.click(await screen.findByRole('button', { name: 'Score Session' }));

    expect(await screen.findByText('scoring is disabled (SCORING_ENABLED=false)')).toBeInTheDocument();
  });

  it('tells an unknown session from an unreachable API', async () => {
    mocked.getSession.mockRejectedValue(new ApiError(404, 'session sess-1 not found'));
    mocked.getLatestScore.mockResolvedValue(null);
    renderPage();

    expect(await screen.findByText('Session sess-1 is not known to the session source.')).toBeInTheDocument();
  });
});

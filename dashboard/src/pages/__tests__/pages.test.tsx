import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../api/client';
import type { SessionListPage } from '../../api/generated/schema';
import { makeDistribution } from '../../test/fixtures';
import { render } from '../../test/render';
import { AnalyticsPage } from '../AnalyticsPage';
import { SessionsPage } from '../SessionsPage';

vi.mock('../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../api/client')>();
  return {
    ...actual,
    api: {
      listSessions: vi.fn(),
      scoreDistribution: vi.fn(),
      missingTools: vi.fn(),
      criteriaInUse: vi.fn(),
    },
  };
});

const mocked = vi.mocked(api, true);

function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname}</div>;
}

function renderAt(path: string, element: React.ReactNode) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/" element={element} />
        <Route path="/analytics" element={element} />
        <Route path="/sessions/:id" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

const bands = makeDistribution;

beforeEach(() => {
  vi.resetAllMocks();
  mocked.criteriaInUse.mockResolvedValue([]);
  mocked.missingTools.mockResolvedValue({ criteria_hash: null, bucket: 'week', periods: 12, items: [] });
});

describe('SessionsPage', () => {
  it('shows an empty state when the source has no sessions', async () => {
    const empty: SessionListPage = { items: [], page: 1, page_size: 20, total_items: 0, total_pages: 0, skipped: [], next_cursor: null, scan: null };
    mocked.listSessions.mockResolvedValue(empty);
    renderAt('/', <SessionsPage />);

    expect(await screen.findByText('No sessions yet')).toBeInTheDocument();
  });

  it('shows the error with a retry that loads again', async () => {
    mocked.listSessions.mockRejectedValueOnce(new Error('the API could not be reached'));
    mocked.listSessions.mockResolvedValueOnce({
      items: [
        {
          session_id: 's-1',
          status: 'completed',
          alert_type: 'PodOOMKilled',
          agent_type: 'KubernetesAgent',
          author: 'alertmanager',
          started_at: null,
          completed_at: null,
          source: null,
          score: { score_id: 'x', status: 'completed', total_score: 91, is_current_criteria: true, criteria_hash: 'a' },
        },
      ],
      page: 1,
      page_size: 20,
      total_items: 1,
      total_pages: 1,
      skipped: [],
      next_cursor: null,
      scan: null,
    });
    renderAt('/', <SessionsPage />);

    expect(await screen.findByText(/Could not load the sessions: the API could not be reached/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('PodOOMKilled')).toBeInTheDocument();
    expect(screen.getByTestId('score-badge')).toHaveAttribute('data-band', 'near_perfect');
    await userEvent.click(screen.getByText('PodOOMKilled'));
    expect(screen.getByTestId('location')).toHaveTextContent('/sessions/s-1');
  });
});

describe('AnalyticsPage', () => {
  it('says there is nothing to show before any score is completed', async () => {
    mocked.scoreDistribution.mockResolvedValue(bands([0, 0, 0, 0, 0]));
    renderAt('/analytics', <AnalyticsPage />);

    expect(await screen.findByText('No completed scores yet')).toBeInTheDocument();
    expect(screen.getByText('No missing tools named')).toBeInTheDocument();
  });

  it('draws one bar per band and lists the sessions behind a bar', async () => {
    mocked.scoreDistribution.mockResolvedValue(bands([1, 0, 2, 0, 0], [['s-low'], [], ['s-a', 's-b']]));
    mocked.missingTools.mockResolvedValue({
      criteria_hash: null,
      bucket: 'week',
      periods: 12,
      items: [
        {
          tool_name: 'k8s.pods_log',
          count: 2,
          session_ids: ['s-a', 's-low'],
          spellings: ['k8s.pods_log'],
          trend: [],
          by_agent: [],
          available_in_sessions: 0,
        },
      ],
    });
    renderAt('/analytics', <AnalyticsPage />);

    const bars = await screen.findAllByTestId('band-bar');
    expect(bars).toHaveLength(5);
    expect(bars[1]).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Adequate: 2 sessions' }));
    const drill = screen.getByTestId('drilldown');
    expect(drill).toHaveTextContent('Adequate (60-74): 2 sessions');
    expect(within(drill).getAllByRole('link').map((a) => a.textContent)).toEqual(['s-a', 's-b']);

    await userEvent.click(screen.getByRole('button', { name: 'k8s.pods_log: 2 sessions' }));
    expect(screen.getByTestId('drilldown')).toHaveTextContent('Missing k8s.pods_log: 2 sessions');
    await userEvent.click(screen.getByRole('link', { name: 's-low' }));
    expect(screen.getByTestId('location')).toHaveTextContent('/sessions/s-low');
  });

  it('draws the counts as a chart and offers to re-score with the current criteria', async () => {
    mocked.scoreDistribution.mockResolvedValue(bands([1, 0, 2, 0, 0]));
    renderAt('/analytics', <AnalyticsPage />);

    expect(
      await screen.findByRole('img', { name: /^Score distribution: Failed \(0-44\) 1 session, Weak \(45-59\) 0 sessions/ }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('distribution-card').querySelector('svg')).not.toBeNull();
    expect(screen.getByRole('link', { name: 'Re-score with current criteria' })).toHaveAttribute(
      'href',
      expect.stringMatching(/^\/runs\/new\?which=not_current_criteria&/),
    );
  });

  it('shows the error when the analytics cannot be loaded', async () => {
    mocked.scoreDistribution.mockRejectedValue(new Error('database unavailable'));
    renderAt('/analytics', <AnalyticsPage />);

    expect(await screen.findByText(/Could not load the analytics: database unavailable/)).toBeInTheDocument();
  });
});

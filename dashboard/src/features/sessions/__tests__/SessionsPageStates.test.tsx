import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import type { SessionListPage } from '../../../api/generated/schema';
import { render } from '../../../test/render';
import { SessionsPage } from '../SessionsPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return {
    ...actual,
    api: { listSessions: vi.fn() },
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
        <Route path="/sessions/:id" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

/** A page of one completed session, s-1 (PodOOMKilled), scored `total`. */
function onePage(total: number): SessionListPage {
  return {
    items: [
      {
        session_id: 's-1',
        status: 'completed',
        alert_type: 'PodOOMKilled',
        title: null,
        agent_type: 'KubernetesAgent',
        author: 'alertmanager',
        started_at: null,
        completed_at: null,
        source: null,
        score: { score_id: 'x', status: 'completed', total_score: total, is_current_criteria: true, criteria_hash: 'a', later_attempt_status: null },
      },
    ],
    page: 1,
    page_size: 20,
    total_items: 1,
    total_pages: 1,
    skipped: [],
    next_cursor: null,
    scan: null,
    criteria_hash: null,
  };
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe('SessionsPage', () => {
  it('shows an empty state when the source has no sessions', async () => {
    const empty: SessionListPage = { items: [], page: 1, page_size: 20, total_items: 0, total_pages: 0, skipped: [], next_cursor: null, scan: null, criteria_hash: null };
    mocked.listSessions.mockResolvedValue(empty);
    renderAt('/', <SessionsPage />);

    expect(await screen.findByText('No sessions yet')).toBeInTheDocument();
  });

  it('shows the error with a retry that loads again', async () => {
    mocked.listSessions.mockRejectedValueOnce(new Error('the API could not be reached'));
    mocked.listSessions.mockResolvedValueOnce(onePage(91));
    renderAt('/', <SessionsPage />);

    expect(await screen.findByText(/Could not load the sessions: the API could not be reached/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('PodOOMKilled')).toBeInTheDocument();
    expect(screen.getByTestId('score-badge')).toHaveAttribute('data-band', 'near_perfect');
    await userEvent.click(screen.getByText('PodOOMKilled'));
    expect(screen.getByTestId('location')).toHaveTextContent('/sessions/s-1');
  });

  it('keeps the rows shown readable while the next ones load, and says they are loading', async () => {
    mocked.listSessions.mockResolvedValueOnce(onePage(31));
    mocked.listSessions.mockReturnValueOnce(new Promise<SessionListPage>(() => {})); // the next page never arrives
    renderAt('/', <SessionsPage />);
    expect(await screen.findByText('PodOOMKilled')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Refreshing sessions' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Score' })); // sort by score: a new query

    expect(await screen.findByRole('progressbar', { name: 'Refreshing sessions' })).toBeInTheDocument();
    const rows = screen.getByText('PodOOMKilled').closest('tbody');
    expect(rows).toHaveAttribute('aria-busy', 'true');
    // dimmed text (opacity 0.5) fails WCAG contrast: the rows stay at full strength
    expect(rows).not.toHaveStyle({ opacity: '0.5' });
  });
});

import { screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import { render } from '../../../test/render';
import { FailureTagSessionsPage } from '../FailureTagSessionsPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return { ...actual, api: { failureTagSessions: vi.fn() } };
});

const mocked = vi.mocked(api, true);

beforeEach(() => {
  vi.resetAllMocks();
});

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/analytics/failure-tags/:tag" element={<FailureTagSessionsPage />} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('FailureTagSessionsPage', () => {
  it('lists the sessions whose latest score has the tag, each linking to its session', async () => {
    mocked.failureTagSessions.mockResolvedValue({
      tag: 'wrong_conclusion',
      criteria_hash: null,
      page: 1,
      page_size: 50,
      items: [
        { session_id: 's-1', score_id: '00000000-0000-4000-8000-000000000009', total_score: 20, scored_at: '2026-11-30T10:00:00Z' },
      ],
    });

    renderAt('/analytics/failure-tags/wrong_conclusion');

    expect(await screen.findByRole('heading', { name: 'Sessions tagged wrong conclusion' })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 's-1' })).toHaveAttribute('href', '/sessions/s-1');
  });

  it('says so when no session has the tag', async () => {
    mocked.failureTagSessions.mockResolvedValue({ tag: 'x', criteria_hash: null, page: 1, page_size: 50, items: [] });

    renderAt('/analytics/failure-tags/x');

    expect(await screen.findByText("No session's latest score has this tag")).toBeInTheDocument();
  });
});

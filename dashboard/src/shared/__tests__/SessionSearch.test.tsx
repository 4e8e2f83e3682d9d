import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../api/client';
import type { SessionSearchResult } from '../../api/generated/schema';
import { render } from '../../test/render';
import { SessionSearch } from '../components/SessionSearch';

vi.mock('../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../api/client')>();
  return { ...actual, api: { searchSessions: vi.fn() } };
});

const mocked = vi.mocked(api, true);

const UPLOAD = 'upload:d0668bb1-f3fc-45a6-80d6-f1411ed09a4f';
const found: SessionSearchResult = {
  query: 'd0668',
  items: [
    { session_id: UPLOAD, title: 'Alert MySQLReplicationLag: replica db-3 is 900 s behind', alert_type: 'MySQLReplicationLag', agent: null, source: 'upload', matched: 'id' },
  ],
  source_unavailable: false,
};

function Where() {
  return <div data-testid="location">{useLocation().pathname}</div>;
}

const renderSearch = () =>
  render(
    <MemoryRouter initialEntries={['/scores']}>
      <SessionSearch />
      <Routes>
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );

beforeEach(() => {
  vi.resetAllMocks();
});

describe('SessionSearch', () => {
  it('finds a session by a piece of its id and opens the one picked', async () => {
    mocked.searchSessions.mockResolvedValue(found);
    renderSearch();

    await userEvent.type(screen.getByRole('combobox', { name: 'Search sessions by id, agent or alert type' }), 'd0668');

    const hit = await screen.findByTestId('search-hit');
    expect(hit).toHaveTextContent('Alert MySQLReplicationLag: replica db-3 is 900 s behind');
    expect(hit).toHaveTextContent('d0668bb1');
    expect(mocked.searchSessions).toHaveBeenLastCalledWith('d0668');
    await userEvent.click(hit);
    expect(screen.getByTestId('location')).toHaveTextContent(`/sessions/${encodeURIComponent(UPLOAD)}`);
  });

  it('opens the best match on Enter, a whole id nothing matches as typed, and says "no matches" for a fragment', async () => {
    mocked.searchSessions.mockResolvedValueOnce(found);
    renderSearch();
    const box = screen.getByRole('combobox', { name: 'Search sessions by id, agent or alert type' });

    await userEvent.type(box, 'd0668{Enter}');
    await vi.waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(`/sessions/${encodeURIComponent(UPLOAD)}`));

    // a fragment nothing matches stays in the box: never a page that sends the reader back to the search
    mocked.searchSessions.mockResolvedValue({ query: 'tarsy-42', items: [], source_unavailable: false });
    await userEvent.type(box, 'tarsy-42{Enter}');
    expect(await screen.findByTestId('search-no-matches')).toHaveTextContent('No matches for “tarsy-42”');
    expect(screen.getByTestId('location')).toHaveTextContent(`/sessions/${encodeURIComponent(UPLOAD)}`);

    const whole = '0f8fad5b-d9cb-469f-a165-70867728950e';
    mocked.searchSessions.mockResolvedValue({ query: whole, items: [], source_unavailable: false });
    await userEvent.clear(box);
    await userEvent.type(box, `${whole}{Enter}`);
    await vi.waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(`/sessions/${whole}`));
  });

  it('asks nothing for a single character, even on Enter', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      renderSearch();

      await userEvent.type(screen.getByRole('combobox', { name: 'Search sessions by id, agent or alert type' }), 'd{Enter}');
      await act(() => vi.advanceTimersByTimeAsync(1000)); // well past the pause after which a search is sent

      expect(mocked.searchSessions).not.toHaveBeenCalled();
      expect(screen.getByTestId('location')).toHaveTextContent('/scores');
    } finally {
      vi.useRealTimers();
    }
  });
});

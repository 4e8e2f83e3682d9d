import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import type { SessionListItem, SessionListPage } from '../../../api/generated/schema';
import { render } from '../../../test/render';
import { SessionsPage } from '../SessionsPage';
import { DEFAULT_STATE, paramsFromState, queryFromState, stateFromParams } from '../urlState';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return { ...actual, api: { listSessions: vi.fn() } };
});

const mocked = vi.mocked(api, true);

function item(sessionId: string, total: number | null): SessionListItem {
  return {
    session_id: sessionId,
    status: 'completed',
    alert_type: `Alert ${sessionId}`,
    title: `Alert ${sessionId}`,
    agent_type: 'KubernetesAgent',
    author: null,
    started_at: '2026-11-20T08:00:00Z',
    completed_at: null,
    source: 'file',
    score:
      total === null
        ? null
        : { score_id: `id-${sessionId}`, status: 'completed', total_score: total, is_current_criteria: true, criteria_hash: 'a', later_attempt_status: null },
  };
}

function page(items: SessionListItem[], overrides: Partial<SessionListPage> = {}): SessionListPage {
  return {
    items,
    page: 1,
    page_size: 20,
    total_items: items.length,
    total_pages: 1,
    skipped: [],
    next_cursor: null,
    scan: null,
    criteria_hash: null,
    ...overrides,
  };
}

function Location() {
  return <output data-testid="location">{useLocation().search}</output>;
}

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route
          path="/"
          element={
            <>
              <SessionsPage />
              <Location />
            </>
          }
        />
      </Routes>
    </MemoryRouter>,
  );
}

const lastQuery = () => mocked.listSessions.mock.lastCall?.[0];
const search = () => new URLSearchParams(screen.getByTestId('location').textContent ?? '');
const parse = (query: string) => stateFromParams(new URLSearchParams(query));

beforeEach(() => {
  vi.resetAllMocks();
  mocked.listSessions.mockResolvedValue(page([item('s-1', 91), item('s-2', null)]));
});

describe('the Sessions URL state', () => {
  it('round-trips every filter, the sort and the page, writing only what differs from the defaults', () => {
    const state = parse('scored=scored&band=good&band=near_perfect&criteria=any&sort=score_asc&page=3&page_size=50');

    expect(state).toEqual({
      scored: 'scored',
      bands: ['good', 'near_perfect'],
      currentOnly: false,
      sort: 'score_asc',
      page: 3,
      pageSize: 50,
      cursors: [],
      range: '',
      startedFrom: '',
      startedBefore: '',
    });
    expect(stateFromParams(paramsFromState(state))).toEqual(state);
    expect(paramsFromState(DEFAULT_STATE).toString()).toBe('');
    // the current criteria by default: the score the Scores page and a session's page show
    expect(DEFAULT_STATE.currentOnly).toBe(true);
    expect(parse('criteria=current').currentOnly).toBe(true);
  });

  it('keeps to the combinations the API accepts', () => {
    // A band or a sort by score lists scored sessions.
    expect(parse('band=weak').scored).toBe('scored');
    expect(parse('sort=score_desc').scored).toBe('scored');
    // Unscored sessions have no band or score to sort by; they page with cursors, not numbers.
    expect(parse('scored=unscored&band=weak&sort=score_desc&page=4&cursor=c1')).toMatchObject({
      bands: [],
      sort: 'source',
      page: 1,
      cursors: ['c1'],
    });
    // Unknown values fall back to the defaults rather than reaching the API.
    expect(parse('scored=maybe&sort=random&page_size=7')).toMatchObject({ scored: 'any', sort: 'source', pageSize: 20 });
  });

  it('asks for a numbered page, or for an unscored list the last cursor', () => {
    expect(queryFromState(parse('band=good&criteria=any&page=2'))).toEqual({
      page: 2,
      page_size: 20,
      scored: 'scored',
      criteria: 'any',
      sort: 'source',
      band: ['good'],
    });
    expect(queryFromState(parse('scored=unscored&criteria=current&cursor=c1&cursor=c2'))).toEqual({
      page_size: 20,
      scored: 'unscored',
      criteria: 'current',
      sort: 'source',
      cursor: 'c2',
    });
  });
});

describe('the Sessions start range', () => {
  const now = Date.parse('2026-12-01T09:30:45Z');

  it('keeps a preset or two days in the URL and asks for the instants they mean', () => {
    const preset = parse('range=7d');
    expect(paramsFromState(preset).toString()).toBe('range=7d');
    expect(queryFromState(preset, now)).toEqual({
      page_size: 20,
      scored: 'any',
      criteria: 'current',
      sort: 'source',
      started_after: '2026-11-24T09:30:00.000Z',
    });

    const days = parse('started_after=2026-11-01&started_before=2026-11-08&scored=scored&page=2');
    expect(stateFromParams(paramsFromState(days))).toEqual(days);
    expect(queryFromState(days, now)).toMatchObject({
      scored: 'scored',
      page: 2,
      started_after: '2026-11-01T00:00:00Z',
      started_before: '2026-11-08T00:00:00Z',
    });
  });

  it('pages a dated source list with cursors, as the API scans the source for it', () => {
    expect(parse('range=24h&page=3&cursor=c1')).toMatchObject({ page: 1, cursors: ['c1'] });
    expect(queryFromState(parse('range=24h&cursor=c1&cursor=c2'), now)).toEqual({
      page_size: 20,
      scored: 'any',
      criteria: 'current',
      sort: 'source',
      started_after: '2026-11-30T09:30:00.000Z',
      cursor: 'c2',
    });
    // A scored list in a range still pages by number (the API filters the scores).
    expect(parse('range=24h&scored=scored&page=3&cursor=c1')).toMatchObject({ page: 3, cursors: [] });
  });

  it('drops what the API would refuse: an unknown preset, a bad day, a "before" not after "from"', () => {
    expect(parse('range=1y&started_after=2026-13-45')).toMatchObject({ range: '', startedFrom: '' });
    expect(parse('started_after=2026-11-08&started_before=2026-11-01')).toMatchObject({ startedFrom: '2026-11-08', startedBefore: '' });
    // a preset takes the place of the "from" day
    expect(parse('range=30d&started_after=2026-11-01')).toMatchObject({ range: '30d', startedFrom: '' });
  });
});

describe('SessionsPage', () => {
  it('filters by when the sessions started, in one click or by day, and says so in the URL', async () => {
    renderAt('/?page=2');
    await screen.findAllByTestId('session-row');

    await userEvent.click(screen.getByRole('button', { name: 'Last 24 h' }));
    expect(search().toString()).toBe('range=24h');
    await waitFor(() => expect(lastQuery()).toHaveProperty('started_after'));
    expect(lastQuery()).not.toHaveProperty('page'); // a dated source list pages with cursors

    await userEvent.click(screen.getByRole('button', { name: 'All time' }));
    expect(search().toString()).toBe('');

    await userEvent.type(screen.getByLabelText('Started from (UTC)'), '2026-11-02');
    expect(search().get('started_after')).toBe('2026-11-02');
    await waitFor(() => expect(lastQuery()).toMatchObject({ started_after: '2026-11-02T00:00:00Z' }));
  });

  it('folds the filters behind one button that says how many are set', async () => {
    renderAt('/?range=7d&criteria=any');
    await screen.findAllByTestId('session-row');

    const toggle = screen.getByRole('button', { name: 'Filters (2 set)' });
    expect(toggle).toHaveAttribute('aria-controls', 'session-filters');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(toggle);
    expect(screen.getByRole('button', { name: 'Hide filters' })).toHaveAttribute('aria-expanded', 'true');
  });

  it('names each session by its title as a link, with a short id that copies the whole one', async () => {
    const upload = 'upload:d0668bb1-f3fc-45a6-80d6-f1411ed09a4f';
    const user = userEvent.setup();
    mocked.listSessions.mockResolvedValue(page([{ ...item(upload, 81), title: 'Alert MySQLReplicationLag: replica db-3 lags', alert_type: null }]));
    renderAt('/');

    const link = await screen.findByRole('link', { name: 'Alert MySQLReplicationLag: replica db-3 lags' });
    expect(link).toHaveAttribute('href', `/sessions/${encodeURIComponent(upload)}`);
    expect(screen.getByTestId('session-short-id')).toHaveTextContent(/^d0668bb1$/);
    await user.click(screen.getByRole('button', { name: `Copy session id ${upload}` }));
    expect(await navigator.clipboard.readText()).toBe(upload);
    expect(screen.getByTestId('location')).toHaveTextContent(''); // copying did not open the session
  });

  it('loads the list the URL describes and shows each score', async () => {
    renderAt('/?band=near_perfect&sort=score_desc&criteria=current');

    const rows = await screen.findAllByTestId('session-row');
    expect(rows.map((r) => r.dataset.sessionId)).toEqual(['s-1', 's-2']);
    expect(lastQuery()).toMatchObject({ scored: 'scored', band: ['near_perfect'], sort: 'score_desc', criteria: 'current', page: 1 });
    expect(within(rows[0]).getByTestId('score-badge')).toHaveAttribute('data-band', 'near_perfect');
    expect(screen.getByRole('button', { name: 'Scored' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByLabelText('Current criteria only')).toBeChecked();
  });

  it('puts each filter in the URL: scored, a band chip, current criteria, and the Score column sort', async () => {
    renderAt('/?page=2');
    await screen.findAllByTestId('session-row');

    await userEvent.click(screen.getByRole('button', { name: 'Scored' }));
    expect(search().toString()).toBe('scored=scored');

    const good = screen.getAllByTestId('band-chip').find((chip) => chip.dataset.band === 'good');
    await userEvent.click(good!);
    expect(search().getAll('band')).toEqual(['good']);

    await userEvent.click(screen.getByLabelText('Current criteria only'));
    expect(search().get('criteria')).toBe('any');

    await userEvent.click(screen.getByRole('button', { name: 'Score' }));
    expect(search().get('sort')).toBe('score_desc');
    await userEvent.click(screen.getByRole('button', { name: 'Score' }));
    expect(search().get('sort')).toBe('score_asc');
    await waitFor(() => expect(lastQuery()).toMatchObject({ band: ['good'], criteria: 'any', sort: 'score_asc' }));

    await userEvent.click(screen.getByRole('button', { name: 'Clear' }));
    expect(search().toString()).toBe('');
  });

  it('pages an unscored list with its cursor and says when the scan stopped at its limit', async () => {
    renderAt('/?band=good');
    await screen.findAllByTestId('session-row');
    mocked.listSessions.mockResolvedValueOnce(
      page([item('s-8', null)], {
        total_items: null,
        total_pages: null,
        next_cursor: 'next-1',
        scan: { source_pages_read: 5, source_page_limit: 5, limit_reached: true },
      }),
    );
    mocked.listSessions.mockResolvedValueOnce(page([item('s-3', null)], { total_items: null, total_pages: null }));

    await userEvent.click(screen.getByRole('button', { name: 'Unscored' }));
    expect(search().toString()).toBe('scored=unscored');
    expect(await screen.findByTestId('scan-note')).toHaveTextContent('Stopped after 5 source pages');

    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(search().getAll('cursor')).toEqual(['next-1']);
    await waitFor(() => expect(lastQuery()).toMatchObject({ scored: 'unscored', cursor: 'next-1' }));
    expect(await screen.findByText('Alert s-3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    await userEvent.click(screen.getByRole('button', { name: 'Previous' }));
    expect(search().getAll('cursor')).toEqual([]);
  });

  it('tells an empty source from a filter that matches nothing', async () => {
    mocked.listSessions.mockResolvedValue(page([], { total_items: 0 }));
    renderAt('/?scored=scored');

    expect(await screen.findByText('No sessions match')).toBeInTheDocument();
    expect(screen.queryByText('No sessions yet')).not.toBeInTheDocument();
  });
});

import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import { makeScore } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { CompareAttemptsPage } from '../CompareAttemptsPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return { ...actual, api: { getSessionScoring: vi.fn(), criteriaInUse: vi.fn() } };
});

const mocked = vi.mocked(api, true);

const newest = makeScore({
  score_id: '00000000-0000-4000-8000-00000000000a',
  total_score: 80,
  score_breakdown: { logical_flow: 20, consistency: 20, tool_relevance: 20, synthesis_quality: 20 },
  score_reasoning: 'Now the agent **checked** the memory limit.',
  missing_tools: [{ tool_name: 'prometheus_query', rationale: 'the memory trend', canonical_name: 'prometheus_query' }],
  requested_at: '2026-11-21T09:00:00Z',
});
const older = makeScore({
  score_id: '00000000-0000-4000-8000-00000000000b',
  total_score: 67,
  score_reasoning: 'The agent jumped to a conclusion.',
  missing_tools: [
    { tool_name: 'prometheus_query', rationale: 'the memory trend', canonical_name: 'prometheus_query' },
    { tool_name: 'get_pod_logs', rationale: 'the crash', canonical_name: 'get_pod_logs' },
  ],
  requested_at: '2026-11-20T09:00:00Z',
});
const failed = makeScore({
  score_id: '00000000-0000-4000-8000-00000000000c',
  status: 'failed',
  total_score: null,
  score_breakdown: null,
  error_message: 'judge timed out',
  requested_at: '2026-11-19T09:00:00Z',
});

function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.search}</div>;
}

const renderAt = (search = '') =>
  render(
    <MemoryRouter initialEntries={[`/sessions/sess-1/compare${search}`]}>
      <Routes>
        <Route path="/sessions/:sessionId/compare" element={<CompareAttemptsPage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  );

const cells = (name: string) => {
  const row = screen.getAllByTestId('compare-row').find((r) => r.getAttribute('data-row') === name)!;
  return within(row).getAllByRole('cell').map((c) => c.textContent);
};

beforeEach(() => {
  vi.resetAllMocks();
  mocked.criteriaInUse.mockResolvedValue([]);
  mocked.getSessionScoring.mockResolvedValue({ session_id: 'sess-1', current: newest, latest: newest, attempts: [newest, older, failed] });
});

describe('CompareAttemptsPage', () => {
  it('shows the current score beside the previous one: totals, dimensions with B minus A, missing tools, reasoning', async () => {
    renderAt();

    expect(await screen.findByRole('heading', { level: 1, name: 'Compare attempts' })).toBeInTheDocument();
    expect(cells('Total')).toEqual(['80', '67', '-13']);
    expect(cells('Logical flow (of 25)')).toEqual(['20', '15', '-5']);
    expect(cells('Synthesis quality (of 25)')).toEqual(['20', '20', '0']);
    expect(cells('Missing tools')).toEqual(['1', '2', '+1']);
    const tools = screen.getAllByTestId('compare-missing-tool');
    expect(tools.map((t) => [t.getAttribute('data-tool'), ...within(t).getAllByRole('cell').slice(1).map((c) => c.textContent)])).toEqual([
      ['get_pod_logs', '–', 'named'],
      ['prometheus_query', 'named', 'named'],
    ]);
    expect(within(screen.getByTestId('compare-reasoning-A')).getByText('checked').tagName).toBe('STRONG');
    expect(screen.getByTestId('compare-reasoning-B')).toHaveTextContent('The agent jumped to a conclusion.');
  });

  it('merges two spellings of one tool into one row under the canonical name the API gives, with the spellings', async () => {
    const spelledA = makeScore({
      ...newest,
      missing_tools: [
        { tool_name: 'kubernetes-server.pods_logs', rationale: 'the crash', canonical_name: 'pods_logs' },
        { tool_name: 'prometheus_query', rationale: 'the memory trend', canonical_name: 'prometheus_query' },
      ],
    });
    const spelledB = makeScore({
      ...older,
      missing_tools: [
        { tool_name: 'kubernetes_server__pods_logs', rationale: 'the crash', canonical_name: 'pods_logs' },
        { tool_name: 'Kubernetes-Server.Pods_Logs', rationale: 'again', canonical_name: 'pods_logs' },
      ],
    });
    mocked.getSessionScoring.mockResolvedValue({ session_id: 'sess-1', current: spelledA, latest: spelledA, attempts: [spelledA, spelledB] });
    renderAt();

    const tools = await screen.findAllByTestId('compare-missing-tool');
    expect(tools.map((t) => [t.getAttribute('data-tool'), ...within(t).getAllByRole('cell').slice(1).map((c) => c.textContent)])).toEqual([
      ['pods_logs', 'named', 'named'],
      ['prometheus_query', 'named', '–'],
    ]);
    expect(within(tools[0]!).getByTestId('compare-missing-tool-spellings').textContent).toBe(
      'as written: kubernetes-server.pods_logs, kubernetes_server__pods_logs, Kubernetes-Server.Pods_Logs',
    );
    expect(within(tools[1]!).queryByTestId('compare-missing-tool-spellings')).not.toBeInTheDocument();
    expect(cells('Missing tools')).toEqual(['2', '1', '-1']);
  });

  it('opens the two attempts a URL names, and puts another pick in the URL', async () => {
    renderAt(`?a=${older.score_id}&b=${failed.score_id}`);

    expect(await screen.findByTestId('compare-reasoning-B')).toHaveTextContent('This attempt failed: judge timed out');
    expect(cells('Status')).toEqual(['completed', 'failed', '']);

    await userEvent.click(screen.getByRole('combobox', { name: 'B' }));
    await userEvent.click(screen.getByRole('option', { name: / · 80 · / }));
    expect(screen.getByTestId('location')).toHaveTextContent(`?a=${older.score_id}&b=${newest.score_id}`);
    expect(cells('Total')).toEqual(['67', '80', '+13']);
  });

  it("compares attempts of different rubrics by each one's own dimensions and maxima", async () => {
    const triage = makeScore({
      score_id: '00000000-0000-4000-8000-00000000000d',
      total_score: 58,
      rubric: 'triage',
      score_breakdown: { evidence: 5, diagnosis: 10, next_steps: 20 },
      dimensions: [
        { key: 'evidence', label: 'Evidence', points: 5, max_points: 10 },
        { key: 'diagnosis', label: 'Diagnosis', points: 10, max_points: 20 },
        { key: 'next_steps', label: 'Next steps', points: 20, max_points: 30 },
      ],
      requested_at: '2026-11-22T09:00:00Z',
    });
    const retriaged = makeScore({
      ...triage,
      score_id: '00000000-0000-4000-8000-00000000000e',
      total_score: 75,
      score_breakdown: { evidence: 8, diagnosis: 15, next_steps: 22 },
      requested_at: '2026-11-23T09:00:00Z',
    });
    mocked.getSessionScoring.mockResolvedValue({
      session_id: 'sess-1',
      current: retriaged,
      latest: retriaged,
      attempts: [retriaged, triage, older],
    });

    renderAt(`?a=${triage.score_id}&b=${older.score_id}`);

    expect(await screen.findByTestId('compare-reasoning-B')).toBeInTheDocument();
    const names = screen.getAllByTestId('compare-row').map((r) => r.getAttribute('data-row'));
    expect(names.slice(1, 8)).toEqual([
      'Evidence (of 10)',
      'Diagnosis (of 20)',
      'Next steps (of 30)',
      'Logical flow (of 25)',
      'Consistency (of 25)',
      'Tool relevance (of 25)',
      'Synthesis quality (of 25)',
    ]);
    expect(cells('Next steps (of 30)')).toEqual(['20', '–', '–']);
    expect(cells('Logical flow (of 25)')).toEqual(['–', '15', '–']);

    await userEvent.click(screen.getByRole('combobox', { name: 'B' }));
    await userEvent.click(screen.getByRole('option', { name: / · 75 · / }));
    expect(cells('Next steps (of 30)')).toEqual(['20', '22', '+2']);
    expect(screen.getAllByTestId('compare-row').map((r) => r.getAttribute('data-row'))).not.toContain('Logical flow (of 25)');
  });

  it('says so when there is only one attempt', async () => {
    mocked.getSessionScoring.mockResolvedValue({ session_id: 'sess-1', current: newest, latest: newest, attempts: [newest] });
    renderAt();

    expect(await screen.findByText('This session has only one attempt')).toBeInTheDocument();
  });
});

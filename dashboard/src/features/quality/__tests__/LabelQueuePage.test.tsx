import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api } from '../../../api/client';
import type { CriteriaDefinition, LabelQueue, RubricInfo, SessionDetail } from '../../../api/generated/schema';
import { makeScore } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { LabelQueuePage } from '../LabelQueuePage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return {
    ...actual,
    api: { nextToLabel: vi.fn(), getSession: vi.fn(), getSessionScoring: vi.fn(), putLabel: vi.fn(), currentCriteria: vi.fn() },
  };
});

const mocked = vi.mocked(api, true);
const IDS = ['s-1', 's-2', 's-3'];

const session = (id: string): SessionDetail => ({
  session_id: id,
  source: null,
  status: 'completed',
  alert_type: 'PodOOMKilled',
  title: `Investigation ${id}`,
  agent_type: 'KubernetesAgent',
  author: null,
  started_at: null,
  completed_at: null,
  alert: { alertname: 'PodOOMKilled' },
  available_tools: [],
  stages: [],
  final_analysis: `Final analysis of ${id}`,
  error: null,
  recording_author: null,
  steps_total: 0,
  steps_shown: 0,
  next_steps_offset: null,
});

/** A queue of IDS that the labeller has not labelled yet (`labelled`), answered as the API does. */
function queueOf(labelled: Set<string>) {
  return async (after: string | null): Promise<LabelQueue> => {
    const left = IDS.filter((id) => !labelled.has(id));
    const next = left.find((id) => after === null || id > after) ?? null;
    return {
      labeller: 'alice@example.com',
      criteria_hash: 'a'.repeat(64),
      remaining: left.length,
      next: next === null ? null : { session_id: next, score_id: `00000000-0000-4000-8000-00000000000${IDS.indexOf(next) + 1}`, total_score: 60 + IDS.indexOf(next), band: 'adequate', scored_at: '2026-11-20T09:00:00Z' },
    };
  };
}

function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

const renderQueue = (path = '/agreement/label') =>
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/agreement/label" element={<LabelQueuePage />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  );

let labelled: Set<string>;

/** The criteria in force, GET /criteria/current's answer, with `rubric` (null: not known). */
const criteria = (rubric: RubricInfo | null): CriteriaDefinition => ({
  criteria_hash: 'a'.repeat(64),
  llm_provider: 'heuristic',
  llm_model: 'heuristic',
  criteria_content: {},
  created_at: null,
  rubric,
});

const TRIAGE: RubricInfo = {
  name: 'triage',
  description: '',
  total: 'sum',
  dimensions: [
    { key: 'evidence', label: 'Evidence', max_points: 10, description: '' },
    { key: 'diagnosis', label: 'Diagnosis', max_points: 20, description: '' },
    { key: 'next_steps', label: 'Next steps', max_points: 30, description: '' },
  ],
  ceiling: null,
  failure_tags: [],
  claims_cite_events: false,
};

beforeEach(() => {
  vi.resetAllMocks();
  labelled = new Set();
  mocked.nextToLabel.mockImplementation(queueOf(labelled));
  mocked.currentCriteria.mockResolvedValue(criteria(null));
  mocked.getSession.mockImplementation(async (id) => session(id));
  mocked.getSessionScoring.mockImplementation(async (id) => {
    const score = makeScore({ session_id: id, total_score: 60 + IDS.indexOf(id), score_reasoning: `Reasoning about ${id}` });
    return { session_id: id, current: score, latest: score, attempts: [score] };
  });
  mocked.putLabel.mockImplementation(async (id, body) => {
    labelled.add(id);
    return {
      label_id: '00000000-0000-4000-8000-0000000000aa',
      session_id: id,
      labeller: 'alice@example.com',
      revision: 1,
      total_score: body.total_score,
      score_breakdown: null,
      band: 'good',
      notes: body.notes ?? null,
      source: 'api',
      created_at: '2026-11-20T10:00:00Z',
    };
  });
});

const shown = async (id: string) => {
  await waitFor(() => expect(screen.getByTestId('queue-session')).toHaveAttribute('data-session-id', id));
  // the transcript and the judge's score of that session
  expect(await screen.findByText(`Final analysis of ${id}`)).toBeInTheDocument();
  expect(await screen.findByText(`Reasoning about ${id}`)).toBeInTheDocument();
};

describe('LabelQueuePage', () => {
  it('labels three sessions in a row from the keyboard: digits, then Enter saves and opens the next', async () => {
    renderQueue();
    await shown('s-1');
    expect(screen.getByTestId('queue-remaining')).toHaveTextContent('Labelling as alice@example.com: 3 sessions');
    expect(screen.getByRole('list', { name: 'Keyboard shortcuts' })).toHaveTextContent('Enter save the label and open the next session');

    for (const [id, keys, total] of [
      ['s-1', '78{Enter}', 78],
      ['s-2', '4{Enter}', 4],
      ['s-3', '100{Enter}', 100],
    ] as const) {
      await shown(id);
      await userEvent.keyboard(keys);
      await waitFor(() => expect(mocked.putLabel).toHaveBeenLastCalledWith(id, { total_score: total, notes: null }));
    }
    expect(await screen.findByText('Nothing left to label')).toBeInTheDocument();
    expect(screen.getByTestId('queue-status')).toHaveTextContent('Saved 100 for s-3. 3 saved, 0 skipped here.');
    // the queue moved on from each session labelled (each read ahead while the one before was on screen)
    expect([...new Set(mocked.nextToLabel.mock.calls.map(([after]) => after))]).toEqual([null, 's-1', 's-2', 's-3']);
  });

  it('in blind mode hides the judge\'s score until the label is saved, then says it', async () => {
    renderQueue('/agreement/label?blind=1');
    await waitFor(() => expect(screen.getByTestId('queue-session')).toHaveAttribute('data-session-id', 's-1'));
    expect(await screen.findByText('Final analysis of s-1')).toBeInTheDocument();
    expect(screen.getByTestId('judge-hidden')).toBeInTheDocument();
    expect(screen.queryByText('Reasoning about s-1')).not.toBeInTheDocument();
    expect(screen.getByLabelText("Blind: hide the judge's score until my label is saved")).toBeChecked();

    await userEvent.keyboard('78{Enter}');
    await waitFor(() => expect(screen.getByTestId('queue-status')).toHaveTextContent('Saved 78 for s-1. The judge gave 60.'));
    await waitFor(() => expect(screen.getByTestId('queue-session')).toHaveAttribute('data-session-id', 's-2'));
    expect(screen.getByTestId('location')).toHaveTextContent('blind=1');
    expect(screen.getByTestId('judge-hidden')).toBeInTheDocument();
  });

  it('skips with s (the session stays in the queue) and offers to start again from the first', async () => {
    renderQueue();
    await shown('s-1');
    await userEvent.keyboard('s');
    await shown('s-2');
    expect(screen.getByTestId('location')).toHaveTextContent('/agreement/label?after=s-1');
    await userEvent.keyboard('s');
    await shown('s-3');
    await userEvent.keyboard('90{Enter}');

    expect(await screen.findByText('No more sessions after the ones you skipped')).toBeInTheDocument();
    expect(mocked.putLabel).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: 'Start again from the first' }));
    await shown('s-1');
  });

  it('saves nothing that is not a total from 0 to 100, and types notes without taking their keys as shortcuts', async () => {
    renderQueue();
    await shown('s-1');
    await userEvent.keyboard('101{Enter}');
    expect(screen.getByText('A whole number from 0 to 100')).toBeInTheDocument();
    expect(mocked.putLabel).not.toHaveBeenCalled();

    await userEvent.clear(screen.getByTestId('queue-total'));
    await userEvent.keyboard('55');
    await userEvent.type(screen.getByRole('textbox', { name: 'Notes (optional)' }), 'sound steps{Enter}');
    await waitFor(() => expect(mocked.putLabel).toHaveBeenCalledWith('s-1', { total_score: 55, notes: 'sound steps' }));
    await shown('s-2');
  });

  it('continues after the session a URL names, and says why a label was refused', async () => {
    mocked.putLabel.mockRejectedValue(new ApiError(403, 'labelling needs the labeller role'));
    renderQueue('/agreement/label?after=s-1');
    await shown('s-2');

    await userEvent.keyboard('70{Enter}');
    const form = screen.getByRole('region', { name: 'Your label' });
    expect(await within(form).findByText('Could not save the label: labelling needs the labeller role')).toBeInTheDocument();
    expect(screen.getByTestId('queue-session')).toHaveAttribute('data-session-id', 's-2');
  });

  it("takes an optional breakdown over the triage rubric's dimensions after the notes, Enter saving it", async () => {
    mocked.currentCriteria.mockResolvedValue(criteria(TRIAGE));
    renderQueue();
    await shown('s-1');
    const breakdown = await screen.findByRole('group', { name: /Breakdown \(optional; rubric triage/ });
    expect(within(breakdown).getAllByRole('textbox').map((box) => box.getAttribute('data-dimension'))).toEqual(['evidence', 'diagnosis', 'next_steps']);

    await userEvent.keyboard('50');
    await userEvent.tab(); // the notes first, as the shortcuts say
    expect(screen.getByRole('textbox', { name: 'Notes (optional)' })).toHaveFocus();
    await userEvent.type(screen.getByLabelText('Evidence (0-10)'), '5');
    await userEvent.type(screen.getByLabelText('Diagnosis (0-20)'), '10');
    await userEvent.type(screen.getByLabelText('Next steps (0-30)'), '16{Enter}'); // 31 of 60 is 52, not 50
    expect(screen.getByTestId('label-breakdown-problem')).toHaveTextContent('the total must be 52');
    expect(mocked.putLabel).not.toHaveBeenCalled();

    await userEvent.type(screen.getByLabelText('Next steps (0-30)'), '{Backspace}{Backspace}15{Enter}');
    await waitFor(() =>
      expect(mocked.putLabel).toHaveBeenCalledWith('s-1', { total_score: 50, score_breakdown: { evidence: 5, diagnosis: 10, next_steps: 15 }, notes: null }),
    );
    await shown('s-2');
  });
});

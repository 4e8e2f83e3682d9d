import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import type { RubricInfo, SessionLabel } from '../../../api/generated/schema';
import { render } from '../../../test/render';
import { LabelForm, SessionLabelsPanel } from '../LabelForm';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return { ...actual, api: { getLabels: vi.fn(), putLabel: vi.fn(), currentCriteria: vi.fn() } };
});

const mocked = vi.mocked(api, true);

const label = (labeller: string, total: number, revision = 1): SessionLabel => ({
  label_id: `00000000-0000-4000-8000-00000000000${revision}`,
  session_id: 'sess-1',
  labeller,
  revision,
  total_score: total,
  score_breakdown: null,
  band: 'adequate',
  notes: null,
  source: 'api',
  created_at: '2026-11-20T09:00:00Z',
});

describe('LabelForm', () => {
  it("shows the judge's score beside each labeller's current label", () => {
    render(<LabelForm judgeTotal={67} labels={[label('alice', 70, 2), label('bob', 60)]} onSubmit={vi.fn()} />);

    expect(screen.getByText('Judge:')).toHaveTextContent('Judge: 67');
    expect(screen.getByText(/alice/)).toHaveTextContent('alice: 70 (revision 2)');
    expect(screen.getByText(/bob/)).toHaveTextContent('bob: 60');
  });

  it('sends a whole score from 0 to 100 with the notes', async () => {
    const onSubmit = vi.fn();
    render(<LabelForm judgeTotal={null} labels={[]} onSubmit={onSubmit} />);

    expect(screen.getByText('No human label yet.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '72');
    await userEvent.type(screen.getByLabelText('Notes'), 'missed the logs');
    await userEvent.click(screen.getByRole('button', { name: 'Save label' }));

    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ total_score: 72, notes: 'missed the logs' });
  });

  it('refuses a score outside 0-100 and says why', async () => {
    const onSubmit = vi.fn();
    render(<LabelForm judgeTotal={50} labels={[]} onSubmit={onSubmit} />);

    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '120');

    expect(screen.getByText('A whole number from 0 to 100')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save label' })).toBeDisabled();
  });

  it("shows the API's error", () => {
    render(<LabelForm judgeTotal={50} labels={[]} error="band is 'good' but a total of 50 is in band 'weak'" onSubmit={vi.fn()} />);

    expect(screen.getByRole('alert')).toHaveTextContent("in band 'weak'");
  });
});

/** config/rubrics/triage.yaml as GET /criteria/current describes it: three dimensions of their own maxima, summed. */
const TRIAGE: RubricInfo = {
  name: 'triage',
  description: 'A quick triage grade of an investigation.',
  total: 'sum',
  dimensions: [
    { key: 'evidence', label: 'Evidence', max_points: 10, description: 'Did the agent gather the evidence?' },
    { key: 'diagnosis', label: 'Diagnosis', max_points: 20, description: 'Does the cause follow from it?' },
    { key: 'next_steps', label: 'Next steps', max_points: 30, description: 'Are the actions concrete?' },
  ],
  ceiling: null,
  failure_tags: [],
  claims_cite_events: false,
};

const HOLISTIC: RubricInfo = { ...TRIAGE, name: 'outcome-first', total: 'holistic' };

describe('LabelForm under the rubric in force', () => {
  it("offers the triage rubric's three dimensions, each out of its own maximum, and sends them", async () => {
    const onSubmit = vi.fn();
    render(<LabelForm judgeTotal={50} labels={[]} rubric={TRIAGE} onSubmit={onSubmit} />);

    const breakdown = screen.getByRole('group', { name: /Breakdown \(optional; rubric triage/ });
    expect(within(breakdown).getAllByRole('textbox').map((box) => box.getAttribute('data-dimension'))).toEqual(['evidence', 'diagnosis', 'next_steps']);
    expect(screen.queryByLabelText(/Logical flow/)).not.toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '50');
    await userEvent.type(screen.getByLabelText('Evidence (0-10)'), '5');
    await userEvent.type(screen.getByLabelText('Diagnosis (0-20)'), '10');
    await userEvent.type(screen.getByLabelText('Next steps (0-30)'), '15');
    await userEvent.click(screen.getByRole('button', { name: 'Save label' }));

    // 30 of 60 points: 50 on 0-100, as the API scales a sum rubric's total
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({
      total_score: 50,
      score_breakdown: { evidence: 5, diagnosis: 10, next_steps: 15 },
      notes: null,
    });
  });

  it("refuses points over a dimension's own maximum, a partial breakdown and a sum that is not the total", async () => {
    const onSubmit = vi.fn();
    render(<LabelForm judgeTotal={50} labels={[]} rubric={TRIAGE} onSubmit={onSubmit} />);
    const save = screen.getByRole('button', { name: 'Save label' });
    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '60');

    await userEvent.type(screen.getByLabelText('Evidence (0-10)'), '11');
    expect(screen.getByText('At most 10')).toBeInTheDocument();
    expect(screen.getByTestId('label-breakdown-problem')).toHaveTextContent('Evidence: a whole number from 0 to 10');
    expect(save).toBeDisabled();

    await userEvent.clear(screen.getByLabelText('Evidence (0-10)'));
    await userEvent.type(screen.getByLabelText('Evidence (0-10)'), '5');
    expect(screen.getByTestId('label-breakdown-problem')).toHaveTextContent('Give every dimension or none: Diagnosis, Next steps empty');

    await userEvent.type(screen.getByLabelText('Diagnosis (0-20)'), '10');
    await userEvent.type(screen.getByLabelText('Next steps (0-30)'), '15');
    expect(screen.getByTestId('label-breakdown-problem')).toHaveTextContent('The dimensions add up to 30 of 60, 50 on 0-100: the total must be 50');
    expect(screen.getByRole('group', { name: /Breakdown/ })).toHaveAccessibleDescription(/the total must be 50/);
    expect(save).toBeDisabled();
    await userEvent.type(screen.getByLabelText('Next steps (0-30)'), '{Enter}'); // Enter submits the form: refused too
    expect(onSubmit).not.toHaveBeenCalled();

    await userEvent.clear(screen.getByLabelText('Your score (0-100)'));
    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '50');
    expect(screen.queryByTestId('label-breakdown-problem')).not.toBeInTheDocument();
    expect(save).toBeEnabled();
  });

  it('under a holistic rubric the dimensions need not add up to the total', async () => {
    const onSubmit = vi.fn();
    render(<LabelForm judgeTotal={50} labels={[]} rubric={HOLISTIC} onSubmit={onSubmit} />);

    expect(screen.getByRole('group', { name: /your total is your own/ })).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '90');
    for (const [name, points] of [['Evidence (0-10)', '2'], ['Diagnosis (0-20)', '3'], ['Next steps (0-30)', '4']]) {
      await userEvent.type(screen.getByLabelText(name), points);
    }
    expect(screen.queryByTestId('label-breakdown-problem')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Save label' }));

    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ total_score: 90, score_breakdown: { evidence: 2, diagnosis: 3, next_steps: 4 }, notes: null });
  });

  it('shows no dimension while the rubric is unknown', () => {
    render(<LabelForm judgeTotal={50} labels={[]} rubric={null} onSubmit={vi.fn()} />);
    expect(screen.queryByTestId('label-breakdown')).not.toBeInTheDocument();
  });
});

describe('SessionLabelsPanel', () => {
  it("offers the dimensions of the criteria in force (GET /criteria/current's rubric) and sends them", async () => {
    mocked.getLabels.mockResolvedValue({ session_id: 'sess-1', current: [], history: [], reference: null, reference_history: [] });
    mocked.currentCriteria.mockResolvedValue({
      criteria_hash: 'a'.repeat(64),
      llm_provider: 'heuristic',
      llm_model: 'heuristic',
      criteria_content: {},
      created_at: null,
      rubric: TRIAGE,
    });
    mocked.putLabel.mockImplementation(async (sessionId, body) => ({ ...label('me', body.total_score), session_id: sessionId, score_breakdown: body.score_breakdown ?? null }));
    render(<SessionLabelsPanel sessionId="sess-1" judgeTotal={40} />);

    await userEvent.type(await screen.findByLabelText('Evidence (0-10)'), '10');
    await userEvent.type(screen.getByLabelText('Diagnosis (0-20)'), '20');
    await userEvent.type(screen.getByLabelText('Next steps (0-30)'), '30');
    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '100');
    await userEvent.click(screen.getByRole('button', { name: 'Save label' }));

    await waitFor(() =>
      expect(mocked.putLabel).toHaveBeenCalledWith('sess-1', { total_score: 100, score_breakdown: { evidence: 10, diagnosis: 20, next_steps: 30 }, notes: null }),
    );
  });
});

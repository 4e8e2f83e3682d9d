import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { SessionLabel } from '../../../api/generated/schema';
import { render } from '../../../test/render';
import { LabelForm } from '../LabelForm';

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

import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { scoreStatusValues } from '../../api/generated/schema';
import { render } from '../../test/render';
import { ScoreBadge } from '../components/ScoreBadge';

const completed = (total: number, current = true) => ({
  status: 'completed' as const,
  total_score: total,
  is_current_criteria: current,
});

describe('ScoreBadge', () => {
  it.each([
    [0, 'failed'],
    [44, 'failed'],
    [45, 'weak'],
    [59, 'weak'],
    [60, 'adequate'],
    [74, 'adequate'],
    [75, 'good'],
    [89, 'good'],
    [90, 'near_perfect'],
    [100, 'near_perfect'],
  ])('puts %i in the %s band and shows the number', (total, band) => {
    render(<ScoreBadge score={completed(total)} />);
    const badge = screen.getByTestId('score-badge');
    expect(badge).toHaveAttribute('data-band', band);
    expect(badge).toHaveTextContent(String(total));
  });

  it('changes to its band colour at once, never through a fade of the background under the new text colour', () => {
    render(<ScoreBadge score={completed(80)} />);
    expect(getComputedStyle(screen.getByTestId('score-badge')).transition).toBe('none');
  });

  it('gives each band its own colour', () => {
    const colours = [10, 50, 65, 80, 95].map((total) => {
      const { unmount } = render(<ScoreBadge score={completed(total)} />);
      const colour = getComputedStyle(screen.getByTestId('score-badge')).backgroundColor;
      unmount();
      return colour;
    });
    expect(new Set(colours).size).toBe(5);
  });

  it('says Not Scored when the session was never scored', () => {
    render(<ScoreBadge score={null} />);
    expect(screen.getByTestId('score-badge')).toHaveTextContent('Not Scored');
    expect(screen.getByTestId('score-badge')).not.toHaveAttribute('data-band');
  });

  it.each(['pending', 'in_progress'] as const)('says Scoring… while the attempt is %s', (status) => {
    render(<ScoreBadge score={{ status, total_score: null }} />);
    expect(screen.getByTestId('score-badge')).toHaveTextContent('Scoring…');
  });

  it('says Failed when the attempt failed, not a score of 0', () => {
    render(<ScoreBadge score={{ status: 'failed', total_score: null }} />);
    expect(screen.getByTestId('score-badge')).toHaveTextContent('Failed');
    expect(screen.getByTestId('score-badge')).not.toHaveTextContent('0');
  });

  it('says Cancelled, not Failed, for an attempt cancelled before the judge saw it', () => {
    render(<ScoreBadge score={{ status: 'cancelled', total_score: null }} />);
    expect(screen.getByTestId('score-badge')).toHaveTextContent('Cancelled');
    expect(screen.getByTestId('score-badge')).toHaveAttribute('data-state', 'cancelled');
  });

  it('marks a score made under criteria other than the current', () => {
    render(<ScoreBadge score={completed(80, false)} />);
    expect(screen.getByTestId('score-badge')).toHaveAccessibleName(/other criteria than the current/);
  });

  it('takes the bands from the API, not from a copy of its own', () => {
    const bands = [
      { band: 'failed', label: 'Failed', min_score: 0, max_score: 69 },
      { band: 'near_perfect', label: 'Near-perfect', min_score: 70, max_score: 100 },
    ];
    render(<ScoreBadge score={completed(72)} />, { bands });
    expect(screen.getByTestId('score-badge')).toHaveAttribute('data-band', 'near_perfect');
    expect(screen.getByTestId('score-badge')).toHaveAccessibleName('72/100 · Near-perfect');
  });

  it('shows the number without a band until the bands are loaded', () => {
    render(<ScoreBadge score={completed(72)} />, { bands: null });
    expect(screen.getByTestId('score-badge')).toHaveTextContent('72');
    expect(screen.getByTestId('score-badge')).not.toHaveAttribute('data-band');
  });

  it.each(scoreStatusValues)('has a state for every status the API defines (%s)', (status) => {
    render(<ScoreBadge score={{ status, total_score: status === 'completed' ? 50 : null }} />);
    expect(screen.getByTestId('score-badge').getAttribute('data-state')).toMatch(/^(scored|scoring|cancelled|failed)$/);
  });
});

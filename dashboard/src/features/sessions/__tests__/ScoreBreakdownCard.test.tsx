import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { makeScore } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { ScoreBreakdown } from '../ScoreBreakdownCard';

const OUTCOME_FIRST = makeScore({
  total_score: 30,
  rubric: 'outcome-first',
  score_breakdown: {
    investigation_outcome: 4,
    evidence_gathering: 9,
    tool_utilization: 12,
    analytical_reasoning: 8,
    investigation_completeness: 6,
  },
  dimensions: [
    { key: 'investigation_outcome', label: 'Investigation outcome', points: 4, max_points: 20 },
    { key: 'evidence_gathering', label: 'Evidence gathering', points: 9, max_points: 20 },
    { key: 'tool_utilization', label: 'Tool utilization', points: 12, max_points: 20 },
    { key: 'analytical_reasoning', label: 'Analytical reasoning', points: 8, max_points: 20 },
    { key: 'investigation_completeness', label: 'Investigation completeness', points: 6, max_points: 20 },
  ],
  ceiling: {
    field: 'conclusion',
    label: 'Conclusion correctness',
    value: 'wrong',
    min_score: 0,
    max_score: 34,
    description: 'the conclusion is wrong or missing',
  },
  failure_tags: ['wrong_conclusion', 'missed_available_tool'],
});

const TRIAGE = makeScore({
  total_score: 50,
  rubric: 'triage',
  score_breakdown: { evidence: 5, diagnosis: 10, next_steps: 15 },
  dimensions: [
    { key: 'evidence', label: 'Evidence', points: 5, max_points: 10 },
    { key: 'diagnosis', label: 'Diagnosis', points: 10, max_points: 20 },
    { key: 'next_steps', label: 'Next steps', points: 15, max_points: 30 },
  ],
});

function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname}</div>;
}

function renderCard(score = OUTCOME_FIRST) {
  return render(
    <MemoryRouter initialEntries={['/s']}>
      <Routes>
        <Route path="/s" element={<ScoreBreakdown score={score} />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('ScoreBreakdownCard', () => {
  it('shows the five outcome-first bars, each out of its own maximum', () => {
    renderCard();

    const bars = screen.getAllByTestId('breakdown-bar');
    expect(bars.map((bar) => bar.dataset.dimension)).toEqual([
      'investigation_outcome',
      'evidence_gathering',
      'tool_utilization',
      'analytical_reasoning',
      'investigation_completeness',
    ]);
    expect(within(bars[2]).getByText('12/20')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Tool utilization 12 of 20' })).toHaveAttribute('aria-valuenow', '60');
    expect(screen.getByTestId('breakdown-rubric')).toHaveTextContent('outcome-first');
  });

  it('says which ceiling applied and why', () => {
    renderCard();

    expect(screen.getByTestId('breakdown-ceiling')).toHaveTextContent(
      'Conclusion correctness: wrong (the conclusion is wrong or missing), which allows a total of 0-34.',
    );
  });

  it('shows the failure tags as chips that open the sessions with the same tag', async () => {
    renderCard();

    const chips = screen.getAllByTestId('failure-tag');
    expect(chips.map((chip) => chip.textContent)).toEqual(['wrong conclusion', 'missed available tool']);
    await userEvent.click(screen.getByRole('link', { name: 'Sessions tagged wrong conclusion' }));
    expect(screen.getByTestId('location')).toHaveTextContent('/analytics/failure-tags/wrong_conclusion');
  });

  it('draws a rubric of three dimensions with different maxima, without a ceiling or tags', () => {
    renderCard(TRIAGE);

    const bars = screen.getAllByTestId('breakdown-bar');
    expect(bars).toHaveLength(3);
    expect(within(bars[0]).getByText('5/10')).toBeInTheDocument();
    expect(within(bars[2]).getByText('15/30')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Next steps 15 of 30' })).toHaveAttribute('aria-valuenow', '50');
    expect(screen.queryByTestId('breakdown-ceiling')).toBeNull();
    expect(screen.queryAllByTestId('failure-tag')).toHaveLength(0);
  });
});

import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import type { AgreementReport } from '../../../api/generated/schema';
import { render } from '../../../test/render';
import { AgreementView } from '../AgreementPage';

const report: AgreementReport = {
  criteria_hash: 'a'.repeat(64),
  n: 4,
  spearman_rho: 0.8,
  kendall_tau: 4 / 6,
  mean_absolute_error: 7.5,
  within_5: 0.5,
  within_10: 0.75,
  dimensions: [],
  weighted_kappa: 22 / 23,
  bands: ['failed', 'weak', 'adequate', 'good', 'near_perfect'],
  confusion: [
    [1, 0, 0, 0, 0],
    [0, 1, 0, 0, 0],
    [0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0],
    [0, 0, 0, 1, 1],
  ],
  human_sessions_multi: 2,
  krippendorff_alpha: 0.99,
  pairs: [
    { session_id: 's1', human_total: 95, judge_total: 80 },
    { session_id: 's2', human_total: 55, judge_total: 50 },
  ],
  with_reference: false,
};

function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

const renderView = (shown: AgreementReport) =>
  render(
    <MemoryRouter initialEntries={['/agreement']}>
      <Routes>
        <Route path="/agreement" element={<AgreementView report={shown} />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );

describe('AgreementView', () => {
  it('shows the figures, the confusion matrix and a point per session', () => {
    renderView(report);

    const figures = within(screen.getByRole('table', { name: 'Agreement figures' }));
    expect(figures.getByRole('row', { name: /Spearman/ })).toHaveTextContent('0.80');
    expect(figures.getByRole('row', { name: /Within 10 points/ })).toHaveTextContent('75%');
    expect(figures.getByRole('row', { name: /Krippendorff/ })).toHaveTextContent('humans, 2 sessions');
    const matrix = within(screen.getByRole('table', { name: 'Band confusion matrix' }));
    expect(matrix.getByRole('row', { name: /^near_perfect/ })).toHaveTextContent('near_perfect00011');
    expect(screen.getByRole('group', { name: 'Judge total against human total' }).querySelectorAll('circle')).toHaveLength(2);
  });

  it("opens a point's session in the Scores table", async () => {
    renderView(report);

    await userEvent.click(screen.getByRole('link', { name: 's2: human 55, judge 50: open its score' }));

    expect(screen.getByTestId('location')).toHaveTextContent(`/scores?criteria_hash=${'a'.repeat(64)}&session_id=s2`);
  });

  it('explains how to get data when nothing is labelled', () => {
    renderView({ ...report, n: 0, pairs: [] });

    expect(screen.getByText('No labelled sessions yet')).toBeInTheDocument();
  });
});

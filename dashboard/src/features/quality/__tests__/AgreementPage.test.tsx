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
    { session_id: 'upload:7c1e4f2a-0000-4000-8000-000000000003', human_total: 40, judge_total: 72 },
    { session_id: 's4', human_total: 90, judge_total: 90 },
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
  it('shows the figures, the confusion matrix by band name and a point per session on numbered axes', () => {
    renderView(report);

    const figures = within(screen.getByRole('table', { name: 'Agreement figures' }));
    expect(figures.getByRole('row', { name: /Spearman/ })).toHaveTextContent('0.80');
    expect(figures.getByRole('row', { name: /Within 10 points/ })).toHaveTextContent('75%');
    expect(figures.getByRole('row', { name: /Krippendorff/ })).toHaveTextContent('humans, 2 sessions');
    const matrix = within(screen.getByRole('table', { name: 'Band confusion matrix' }));
    expect(matrix.getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['', 'Failed', 'Weak', 'Adequate', 'Good', 'Near-perfect']);
    expect(matrix.getByRole('row', { name: /^Near-perfect/ })).toHaveTextContent('Near-perfect00011');
    const scatter = screen.getByRole('group', { name: 'Judge total against human total' });
    expect(scatter.querySelectorAll('circle')).toHaveLength(4);
    // each axis is numbered 0 to 100 and named
    const labels = [...scatter.querySelectorAll('text')].map((t) => t.textContent);
    for (const tick of ['0', '25', '50', '75', '100']) expect(labels.filter((l) => l === tick)).toHaveLength(2);
    expect(labels).toEqual(expect.arrayContaining(['Human total', 'Judge total']));
  });

  it('names a point by its figures and bands, and shows them in a tooltip on hover and on keyboard focus', async () => {
    renderView(report);
    const point = screen.getByRole('link', { name: 's2: human 55 (Weak), judge 50 (Weak), gap -5: open its score' });
    expect(screen.queryByTestId('agreement-tooltip')).toBeNull();

    await userEvent.hover(point);
    expect(screen.getByTestId('agreement-tooltip')).toHaveTextContent('s2human 55 (Weak)judge 50 (Weak)gap -5');
    await userEvent.unhover(point);
    expect(screen.queryByTestId('agreement-tooltip')).toBeNull();

    await userEvent.tab();
    expect(screen.getByTestId('agreement-tooltip')).toHaveTextContent('human 95 (Near-perfect)judge 80 (Good)gap -15');
  });

  it('lists the largest judge-human gaps first, each linking to its session', () => {
    renderView(report);

    const rows = screen.getAllByTestId('agreement-gap');
    expect(rows.map((r) => r.getAttribute('data-session-id'))).toEqual(['upload:7c1e4f2a-0000-4000-8000-000000000003', 's1', 's2', 's4']);
    expect(screen.getAllByTestId('agreement-gap-value').map((c) => c.textContent)).toEqual(['+32', '-15', '-5', '0']);
    expect(within(rows[0]).getByRole('link', { name: '7c1e4f2a' })).toHaveAttribute(
      'href',
      '/sessions/upload%3A7c1e4f2a-0000-4000-8000-000000000003',
    );
  });

  it("opens a point's session in the Scores table", async () => {
    renderView(report);

    await userEvent.click(screen.getByRole('link', { name: /^s2: .*: open its score$/ }));

    expect(screen.getByTestId('location')).toHaveTextContent(`/scores?criteria_hash=${'a'.repeat(64)}&session_id=s2`);
  });

  it('explains how to get data when nothing is labelled', () => {
    renderView({ ...report, n: 0, pairs: [] });

    expect(screen.getByText('No labelled sessions yet')).toBeInTheDocument();
  });
});

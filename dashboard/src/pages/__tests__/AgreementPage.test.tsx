import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AgreementReport } from '../../api/generated/schema';
import { render } from '../../test/render';
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

describe('AgreementView', () => {
  it('shows the figures, the confusion matrix and a point per session', () => {
    render(<AgreementView report={report} />);

    const figures = within(screen.getByRole('table', { name: 'Agreement figures' }));
    expect(figures.getByRole('row', { name: /Spearman/ })).toHaveTextContent('0.80');
    expect(figures.getByRole('row', { name: /Within 10 points/ })).toHaveTextContent('75%');
    expect(figures.getByRole('row', { name: /Krippendorff/ })).toHaveTextContent('humans, 2 sessions');
    const matrix = within(screen.getByRole('table', { name: 'Band confusion matrix' }));
    expect(matrix.getByRole('row', { name: /^near_perfect/ })).toHaveTextContent('near_perfect00011');
    expect(screen.getByRole('img', { name: 'Judge total against human total' }).querySelectorAll('circle')).toHaveLength(2);
  });

  it('explains how to get data when nothing is labelled', () => {
    render(<AgreementView report={{ ...report, n: 0, pairs: [] }} />);

    expect(screen.getByText('No labelled sessions yet')).toBeInTheDocument();
  });
});

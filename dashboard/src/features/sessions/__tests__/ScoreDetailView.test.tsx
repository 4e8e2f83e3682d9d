import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { ScoreDetailView } from '../ScoreDetailView';
import { makeScore } from '../../../test/fixtures';
import { render } from '../../../test/render';

describe('ScoreDetailView', () => {
  it('shows the total, four breakdown bars out of 25 and the reasoning as markdown', () => {
    render(<ScoreDetailView score={makeScore()} />);

    expect(screen.getByTestId('total-score')).toHaveTextContent('67/100');
    expect(screen.getByText(/^Adequate · scored/)).toBeInTheDocument();
    const bars = screen.getAllByTestId('breakdown-bar');
    expect(bars).toHaveLength(4);
    expect(within(bars[0]).getByText('15/25')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Synthesis quality 20 of 25' })).toHaveAttribute(
      'aria-valuenow',
      '80',
    );
    expect(screen.getByText('jumped').tagName).toBe('STRONG');
  });

  it('says so when there are no missing tools and no approaches', () => {
    render(<ScoreDetailView score={makeScore()} />);

    expect(screen.getByTestId('missing-tools-card')).toHaveTextContent('Missing tools (0)');
    expect(screen.getByText('The judge named no missing tools.')).toBeInTheDocument();
    expect(screen.getByText('The judge suggested no alternative approach.')).toBeInTheDocument();
    expect(screen.queryAllByTestId('missing-tool')).toHaveLength(0);
  });

  it('lists many missing tools with rationale and approaches with their ordered steps', () => {
    const missing = Array.from({ length: 12 }, (_, i) => ({ tool_name: `server.tool_${i}`, rationale: `needed for ${i}`, canonical_name: `tool_${i}` }));
    const approaches = Array.from({ length: 5 }, (_, i) => ({
      name: `Approach ${i}`,
      description: `Strategy ${i}`,
      steps: ['first look', 'then check', 'finally conclude'],
    }));
    render(<ScoreDetailView score={makeScore({ missing_tools: missing, alternative_approaches: approaches })} />);

    const tools = screen.getAllByTestId('missing-tool');
    expect(tools).toHaveLength(12);
    expect(tools[11]).toHaveTextContent('server.tool_11');
    expect(tools[11]).toHaveTextContent('needed for 11');
    const shown = screen.getAllByTestId('approach');
    expect(shown).toHaveLength(5);
    const steps = within(shown[4]).getAllByRole('listitem');
    expect(steps.map((s) => s.textContent)).toEqual(['first look', 'then check', 'finally conclude']);
    expect(shown[4].querySelector('ol')).not.toBeNull();
  });

  it('names the criteria the score used, says whether it is the current one, and shows the judge and its tokens', () => {
    const name = (hash: string) => (hash === 'a'.repeat(64) ? 'claude-sonnet-4-6 #aaaaaaaa' : 'candidate #bbbbbbbb');
    const { rerender } = render(<ScoreDetailView score={makeScore()} criteriaName={name} />);
    expect(screen.getByTestId('score-criteria')).toHaveTextContent('claude-sonnet-4-6 #aaaaaaaa');
    expect(screen.getByText('current')).toBeInTheDocument();
    expect(screen.getByTestId('judge-info')).toHaveTextContent('anthropic / claude-sonnet-4-6');
    expect(screen.getByTestId('judge-info')).toHaveTextContent(/tokens in 12,000, out 900/);

    rerender(<ScoreDetailView score={makeScore({ criteria_hash: 'b'.repeat(64), is_current_criteria: false })} criteriaName={name} />);
    expect(screen.getByTestId('score-criteria')).toHaveTextContent('candidate #bbbbbbbb');
    expect(screen.getByText('not the current criteria')).toBeInTheDocument();
    expect(screen.queryByText(/older/)).toBeNull();
  });

  it('shows the alert, the final analysis and the earlier attempts', () => {
    const older = makeScore({
      score_id: '00000000-0000-4000-8000-000000000002',
      status: 'failed',
      total_score: null,
      error_message: 'judge timed out',
    });
    const current = makeScore();
    render(
      <MemoryRouter>
        <ScoreDetailView
          score={current}
          alert={{ alertname: 'PodOOMKilled' }}
          finalAnalysis="Memory limit too low"
          history={[current, older]}
        />
      </MemoryRouter>,
    );

    expect(screen.getByText(/PodOOMKilled/)).toBeInTheDocument();
    expect(screen.getByText('Memory limit too low')).toBeInTheDocument();
    const attempts = screen.getAllByTestId('earlier-attempt');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toHaveTextContent('judge timed out');
    // an earlier attempt opens beside the one shown
    const compare = `/sessions/sess-1/compare?a=${current.score_id}&b=${older.score_id}`;
    expect(within(attempts[0]!).getByRole('link', { name: /^Compare the attempt of .* with the one shown$/ })).toHaveAttribute('href', compare);
    expect(screen.getByRole('link', { name: 'Compare attempts side by side' })).toHaveAttribute('href', compare);
  });

  it('shows why an attempt failed instead of a score', () => {
    render(<ScoreDetailView score={makeScore({ status: 'failed', total_score: null, score_breakdown: null, error_message: 'invalid verdict' })} />);

    expect(screen.getByTestId('score-status')).toHaveTextContent('Scoring failed: invalid verdict');
    expect(screen.queryByTestId('breakdown-bar')).toBeNull();
    expect(screen.queryByTestId('total-score')).toBeNull();
  });
});

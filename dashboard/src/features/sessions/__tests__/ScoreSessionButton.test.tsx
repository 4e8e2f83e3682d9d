import { render, screen, waitForElementToBeRemoved } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ScoreSessionButton } from '../ScoreSessionButton';

describe('ScoreSessionButton', () => {
  it('asks for a first score without force when never scored', async () => {
    const onScore = vi.fn();
    render(<ScoreSessionButton status={null} onScore={onScore} />);

    await userEvent.click(screen.getByRole('button', { name: 'Score Session' }));

    expect(onScore).toHaveBeenCalledWith(false);
  });

  it.each([
    ['pending', 'Queued…', 'The attempt is queued for the judge.'],
    ['in_progress', 'Scoring…', 'The judge is reading the session.'],
  ] as const)('is disabled with progress while %s', (status, label, note) => {
    render(<ScoreSessionButton status={status} onScore={vi.fn()} />);

    expect(screen.getByRole('button', { name: label })).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent(note);
    expect(screen.queryByRole('button', { name: 'Score Session' })).toBeNull();
  });

  it('is disabled while the request is being sent', () => {
    render(<ScoreSessionButton status={null} submitting onScore={vi.fn()} />);

    expect(screen.getByRole('button', { name: 'Requesting…' })).toBeDisabled();
  });

  it('re-scores only after the confirmation', async () => {
    const onScore = vi.fn();
    render(<ScoreSessionButton status="completed" onScore={onScore} />);

    await userEvent.click(screen.getByRole('button', { name: 'Re-score' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Score this session again?');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitForElementToBeRemoved(() => screen.queryByRole('dialog'));
    expect(onScore).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole('button', { name: 'Re-score' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Yes, re-score' }));
    expect(onScore).toHaveBeenCalledExactlyOnceWith(true);
  });

  it('shows the error and offers to score again after a failure', async () => {
    const onScore = vi.fn();
    render(<ScoreSessionButton status="failed" error="the judge answered 529 overloaded" onScore={onScore} />);

    expect(screen.getByRole('alert')).toHaveTextContent('the judge answered 529 overloaded');
    await userEvent.click(screen.getByRole('button', { name: 'Score again' }));
    expect(onScore).toHaveBeenCalledWith(true);
  });

  it('cannot score a session that is not finished, and says why', () => {
    render(
      <ScoreSessionButton status={null} disabledReason="This session is in_progress; only completed sessions can be scored." onScore={vi.fn()} />,
    );

    expect(screen.getByRole('button', { name: 'Score Session' })).toBeDisabled();
    expect(screen.getByText(/only completed sessions can be scored/)).toBeInTheDocument();
  });
});

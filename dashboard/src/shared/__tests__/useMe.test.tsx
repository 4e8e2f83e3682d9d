import { act, render as rtlRender, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallerAccess, Role } from '../../api/generated/schema';
import { ScoreSessionButton } from '../../features/sessions/ScoreSessionButton';
import { LabelForm } from '../../features/quality/LabelForm';
import { render } from '../../test/render';
import { ME_PATH, blockedReason, forgetMe, loadMe } from '../useMe';

const ORDER: Role[] = ['viewer', 'labeller', 'operator', 'admin'];

function caller(role: Role | null, enforced = true): CallerAccess {
  return {
    identity: 'vic@example.com',
    source: 'token',
    role,
    roles: role ? ORDER.slice(0, ORDER.indexOf(role) + 1) : [],
    enforced,
    detail: '',
  };
}

/** The API answering GET /me with `me`, as the browser's fetch would (a first attempt, with jsdom's fetch, is
 * forgotten). */
async function signIn(me: CallerAccess) {
  const send = vi.fn(async () => new Response(JSON.stringify(me), { status: 200, headers: { 'content-type': 'application/json' } }));
  await act(() => {
    forgetMe();
    return loadMe(send);
  });
  expect(send).toHaveBeenCalledWith(ME_PATH, expect.objectContaining({ headers: { accept: 'application/json' } }));
}

afterEach(() => act(() => forgetMe()));

describe('blockedReason', () => {
  it('blocks nothing while the caller is unknown or roles are not checked', () => {
    expect(blockedReason('score', null)).toBeNull();
    expect(blockedReason('score', caller(null, false))).toBeNull();
  });

  it('names the role an action needs, the caller and their role', () => {
    expect(blockedReason('score', caller('viewer'))).toBe(
      'Scoring a session needs the operator role; you (vic@example.com) have the viewer role. Ask an admin for the role.',
    );
    expect(blockedReason('label', caller(null))).toMatch(/needs the labeller role; .* have no role/);
  });

  it('lets each role do what its role and the ones below it may', () => {
    expect(blockedReason('label', caller('labeller'))).toBeNull();
    expect(blockedReason('startRun', caller('labeller'))).not.toBeNull();
    expect(blockedReason('startRun', caller('operator'))).toBeNull();
    expect(blockedReason('cancelRun', caller('admin'))).toBeNull();
  });
});

describe('actions the caller may not do', () => {
  it('disables scoring for a viewer and says why', async () => {
    const onScore = vi.fn();
    rtlRender(<ScoreSessionButton status={null} onScore={onScore} />);
    expect(screen.getByRole('button', { name: 'Score Session' })).toBeEnabled(); // unknown yet: the API decides

    await signIn(caller('viewer'));

    expect(screen.getByRole('button', { name: 'Score Session' })).toBeDisabled();
    expect(screen.getByText(/Scoring a session needs the operator role/)).toBeInTheDocument();
  });

  it('keeps scoring for an operator', async () => {
    await signIn(caller('operator'));
    const onScore = vi.fn();
    rtlRender(<ScoreSessionButton status={null} onScore={onScore} />);

    await userEvent.click(screen.getByRole('button', { name: 'Score Session' }));

    expect(onScore).toHaveBeenCalledWith(false);
  });

  it('disables saving a label for a viewer and says why', async () => {
    await signIn(caller('viewer'));
    render(<LabelForm judgeTotal={60} labels={[]} onSubmit={vi.fn()} />);

    await userEvent.type(screen.getByLabelText('Your score (0-100)'), '70');

    expect(screen.getByRole('button', { name: 'Save label' })).toBeDisabled();
    expect(screen.getByText(/Labelling a session needs the labeller role/)).toBeInTheDocument();
  });

  it('leaves everything enabled when GET /me fails', async () => {
    await act(() => {
      forgetMe();
      return loadMe(async () => new Response('{}', { status: 500 }));
    });
    rtlRender(<ScoreSessionButton status={null} onScore={vi.fn()} />);

    expect(screen.getByRole('button', { name: 'Score Session' })).toBeEnabled();
  });
});

// Who the caller is and what they may do (GET /api/v1/scoring/me), for the actions the dashboard offers: an action
// the caller's role does not allow is disabled and says why, instead of failing with a 403 after a click. Fetched once
// per page load and shared by every component that asks, without a query client, so a presentational component (and
// its tests) needs no provider. Until the answer comes, or when it cannot be had, nothing is disabled: the API checks
// every request anyway.
import { useSyncExternalStore } from 'react';
import type { CallerAccess, Role } from '../api/generated/schema';

export const ME_PATH = '/api/v1/scoring/me';
const TIMEOUT_MS = 10000;

/** The role each action needs: the role functions/api/route_roles.py declares for the route the action calls. */
export const ACTION_ROLES = {
  score: 'operator',
  label: 'labeller',
  startRun: 'operator',
  cancelRun: 'operator',
} as const satisfies Record<string, Role>;

export type Action = keyof typeof ACTION_ROLES;

const ACTION_WORDS: Record<Action, string> = {
  score: 'Scoring a session',
  label: 'Labelling a session',
  startRun: 'Starting a scoring run',
  cancelRun: 'Cancelling a run',
};

let me: CallerAccess | null = null;
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

function publish(next: CallerAccess | null) {
  me = next;
  listeners.forEach((listener) => listener());
}

/** Ask the API who the caller is (once; later calls share the first). An error leaves the caller unknown. */
export function loadMe(send: typeof globalThis.fetch = (...args) => globalThis.fetch(...args)): Promise<void> {
  loading ??= send(ME_PATH, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } })
    .then(async (response) => (response.ok ? publish((await response.json()) as CallerAccess) : undefined))
    .catch(() => undefined);
  return loading;
}

/** Forget the caller (tests: each starts unknown). */
export function forgetMe() {
  loading = null;
  publish(null);
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  void loadMe();
  return () => {
    listeners.delete(listener);
  };
}

/** The caller as the API describes them; null while unknown. */
export function useMe(): CallerAccess | null {
  return useSyncExternalStore(subscribe, () => me);
}

/** Why the caller may not do `action` (null: they may, or it is not known yet). */
export function blockedReason(action: Action, caller: CallerAccess | null): string | null {
  if (!caller || !caller.enforced) return null;
  const role = ACTION_ROLES[action];
  if (caller.roles.includes(role)) return null;
  const who = caller.identity ? `you (${caller.identity})` : 'you';
  const has = caller.role ? `the ${caller.role} role` : 'no role';
  return `${ACTION_WORDS[action]} needs the ${role} role; ${who} have ${has}. Ask an admin for the role.`;
}

/** `blockedReason` for the caller of this page. */
export function useBlockedReason(action: Action): string | null {
  return blockedReason(action, useMe());
}

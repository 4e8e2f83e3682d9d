import type { ScoreStatus } from '../api/generated/schema';

/** Whether an attempt is still queued or running. Keyed by the generated enum, so a new status fails to compile here. */
const ACTIVE: Record<ScoreStatus, boolean> = {
  pending: true,
  in_progress: true,
  completed: false,
  failed: false,
  cancelled: false,
};

export const isActive = (status: ScoreStatus | null | undefined): boolean => (status ? ACTIVE[status] : false);

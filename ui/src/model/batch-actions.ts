import type { BatchAction } from '../../../src/model/batch';

/** Every action a batch by query takes, as the console names it, in the order it offers them. */
export const BATCH_ACTION_LABELS: Record<BatchAction, string> = {
  pause: 'Pause',
  resume: 'Resume',
  retry: 'Retry',
  restart: 'Restart',
  rerun: 'Rerun',
  terminate: 'Terminate',
  remove: 'Remove',
};

export const BATCH_ACTIONS = Object.entries(BATCH_ACTION_LABELS) as Array<[BatchAction, string]>;

import type { TaskDef } from '../model/definitions';

// Retry delay of an automatic retry (Conductor's DeciderService.retry); `attempt` is the failed attempt's retryCount.
export function retryDelaySeconds(
  def: Pick<TaskDef, 'retryLogic' | 'retryDelaySeconds' | 'backoffScaleFactor' | 'maxRetryDelaySeconds'>,
  attempt: number,
): number {
  const base = def.retryDelaySeconds ?? 0;
  let delay: number;
  switch (def.retryLogic) {
    case 'LINEAR_BACKOFF':
      delay = base * (def.backoffScaleFactor ?? 1) * (attempt + 1);
      break;
    case 'EXPONENTIAL_BACKOFF':
      delay = base * 2 ** attempt;
      break;
    default:
      delay = base;
  }
  if (!Number.isFinite(delay) || delay > 2_147_483_647) delay = 2_147_483_647;
  const cap = def.maxRetryDelaySeconds ?? 0;
  return cap > 0 ? Math.min(delay, cap) : delay;
}

import type { Config } from './config';

/**
 * How long after SIGTERM the process exits whatever its engines do: the drain, then one
 * BATON_SHUTDOWN_TIMEOUT_MS each for open connections, the actors' deactivation and the final flush
 * and close. Kubernetes' grace period (the chart: 45 s) must cover it, or the last flush is killed.
 */
export function exitDeadlineMs(cfg: Pick<Config, 'BATON_PROFILE' | 'BATON_DAPR_DRAIN_MS' | 'BATON_SHUTDOWN_TIMEOUT_MS'>): number {
  const drain = cfg.BATON_PROFILE === 'distributed' ? cfg.BATON_DAPR_DRAIN_MS : 0;
  return drain + 3 * cfg.BATON_SHUTDOWN_TIMEOUT_MS;
}

import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { exitDeadlineMs } from './exit-deadline';
import { createServer, type RunningServer } from './server';

// Entry point: `npm start`. SIGTERM/SIGINT drain requests and turns, then close the store.
async function main(): Promise<void> {
  let cfg;
  try {
    cfg = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const log = pino({ level: cfg.LOG_LEVEL });
  // Handlers first: a SIGTERM during start-up (a rolling restart, a failed probe) still shuts down cleanly.
  // eslint-disable-next-line prefer-const -- assigned once start-up ends, after the handlers that read it
  let server: RunningServer | undefined;
  let signalled: string | undefined;
  const stop = (signal: string): void => {
    if (signalled) return;
    signalled = signal;
    if (!server) return; // start-up finishes first, then closes
    log.info({ signal }, 'shutting down');
    const deadline = exitDeadlineMs(cfg);
    setTimeout(() => {
      log.error({ signal, withinMs: deadline }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, deadline).unref();
    server.close().then(
      () => process.exit(0),
      (e) => {
        log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  server = await createServer(cfg, log);
  if (signalled) {
    const signal = signalled;
    signalled = undefined;
    stop(signal);
  }
}

main().catch((e) => {
  // A setting the server refuses (auth on without an admin key) is a message naming the variable, not a stack.
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`Baton failed to start: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});

import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { createServer } from './server';

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
  const server = await createServer(cfg, log);
  const stop = (signal: string): void => {
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (e) => {
        log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((e) => {
  process.stderr.write(`Baton failed to start: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});

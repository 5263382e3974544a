import pino, { type Logger } from 'pino';
import { openIndex, openStores, type OpenedStores } from '../composition/distributed';
import { ConfigError, loadConfig, type Config } from '../config';

type Search = Awaited<ReturnType<typeof openIndex>>;

/** Runs `fn` with the configured stores, closed afterwards whatever happens. */
export async function withStores<T>(cfg: Config, fn: (stores: OpenedStores) => Promise<T>): Promise<T> {
  const stores = await openStores(cfg);
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

/** Runs `fn` with the configured search index, closed afterwards whatever happens. */
export async function withIndex<T>(cfg: Config, stores: OpenedStores, fn: (search: Search) => Promise<T>): Promise<T> {
  const search = await openIndex(cfg, stores.sqlite);
  try {
    return await fn(search);
  } finally {
    await search.close();
  }
}

/** A tool's entry point: config from the environment (exit 2 when invalid), pino logging, exit 0 or 1. */
export function runCli(name: string, run: (cfg: Config, log: Logger) => Promise<unknown>): void {
  let cfg: Config;
  try {
    cfg = loadConfig();
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
    process.exit(2);
  }
  run(cfg, pino({ level: cfg.LOG_LEVEL })).then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`${name} failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}

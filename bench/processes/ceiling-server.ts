import { join } from 'node:path';
import { freePort } from './free-port';
import { ManagedChild } from './managed-child';

export interface RunningCeiling {
  baseUrl: string;
  child: ManagedChild;
  stop(): Promise<void>;
}

export type CeilingKind = 'express' | 'raw';

/** Runs a ceiling app (compiled next to this file) as its own process: express 5, or bare node:http. */
export async function startCeilingApp(kind: CeilingKind = 'express'): Promise<RunningCeiling> {
  const port = await freePort();
  const script = kind === 'express' ? 'ceiling-app.js' : 'raw-ceiling-app.js';
  const child = ManagedChild.spawn(`ceiling-app-${kind}`, process.execPath, [join(__dirname, script)], {
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await child.waitReady(async () => (await fetch(`${baseUrl}/health`)).ok, 15_000);
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { baseUrl, child, stop: () => child.stop() };
}

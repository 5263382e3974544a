import { join } from 'node:path';
import { freePort } from './free-port';
import { ManagedChild } from './managed-child';

export interface RunningCeiling {
  baseUrl: string;
  child: ManagedChild;
  stop(): Promise<void>;
}

/** Runs the express ceiling app (compiled next to this file) as its own process. */
export async function startCeilingApp(): Promise<RunningCeiling> {
  const port = await freePort();
  const child = ManagedChild.spawn('ceiling-app', process.execPath, [join(__dirname, 'ceiling-app.js')], {
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

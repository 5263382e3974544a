import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/** Ports this process handed out: each is bound later by some child, so never hand one out twice. */
const handedOut = new Set<number>();

const probePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** A TCP port free right now on 127.0.0.1, and not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await probePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** True when 127.0.0.1:port accepts a TCP connection now. */
export const portOpen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Thrown by a probe of waitFor when waiting longer is pointless (the process died). */
export class GiveUp extends Error {}

/** Polls `probe` until it returns a value other than undefined (errors count as not yet, but GiveUp ends the wait). */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, withinMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      if (err instanceof GiveUp) throw err;
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}

/** A child process of a test, its output in `logFile`; stop() is graceful, kill() is SIGKILL. */
export class TestProcess {
  readonly child: ChildProcess;
  private exited: Promise<number | null>;
  exitCode: number | null | undefined;

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    readonly logFile: string,
    env: NodeJS.ProcessEnv = process.env,
    cwd?: string,
  ) {
    const out = createWriteStream(logFile, { flags: 'a' });
    this.child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.pipe(out);
    this.child.stderr!.pipe(out);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      });
      this.child.once('error', (err) => {
        out.write(`spawn failed: ${String(err)}\n`);
        this.exitCode = -1;
        resolve(-1);
      });
    });
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** The last lines of its output, for failure messages. */
  tail(lines = 40): string {
    if (!existsSync(this.logFile)) return '';
    return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (!this.running) return this.exitCode ?? null;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  wait(): Promise<number | null> {
    return this.exited;
  }
}

export const logPath = (dir: string, name: string): string => join(dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.log`);

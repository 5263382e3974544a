import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';

/** A child process the bench started: keeps the tail of its output for error reports and stops itself on exit. */
export class ManagedChild {
  private readonly tail: string[] = [];
  private exited: Promise<number | null>;
  exitCode: number | null | undefined = undefined;

  private constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    const keep = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        this.tail.push(line);
        if (this.tail.length > 40) this.tail.shift();
      }
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(code);
      });
    });
    live.add(this);
    void this.exited.then(() => live.delete(this));
  }

  static spawn(name: string, command: string, args: readonly string[], options: SpawnOptions): ManagedChild {
    const proc = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    return new ManagedChild(name, proc);
  }

  get pid(): number {
    if (this.proc.pid === undefined) throw new Error(`${this.name} has no pid (failed to spawn?)`);
    return this.proc.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  output(): string {
    return this.tail.join('\n');
  }

  /** Polls `ready` until it resolves true; fails early if the child exits, and after `timeoutMs`. */
  async waitReady(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.name} exited (code ${this.exitCode}) before it was ready:\n${this.output()}`);
      if (await ready().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.output()}`);
  }

  /** SIGTERM, then SIGKILL if it has not gone within `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

const live = new Set<ManagedChild>();
/** Children started through the test support's process helpers (daprd, placement, replicas), by pid. */
const foreign = new Set<number>();

/** Registers a child the bench started by other means, so that an aborted run kills it too; returns the untrack function. */
export function trackForeignPid(pid: number | undefined): () => void {
  if (pid === undefined) return () => undefined;
  foreign.add(pid);
  return () => foreign.delete(pid);
}

/** Last resort on abnormal exit of the bench: no child outlives it. */
export function killAllManagedChildren(): void {
  for (const child of live) if (child.running) child.proc.kill('SIGKILL');
  for (const pid of foreign) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  foreign.clear();
}

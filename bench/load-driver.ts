import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { LoadCommand, LoadEventName, LoadMessage } from './load/protocol';

export type EventHook = (name: LoadEventName, data: Record<string, number | string>) => void;

/** The orchestrator's handle on the load process: one scenario at a time, each with a hard time limit. */
export class LoadDriver {
  private proc: ChildProcess | undefined;
  private nextId = 1;

  private ensure(): ChildProcess {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) {
      this.proc = fork(join(__dirname, 'load', 'load-process.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    }
    return this.proc;
  }

  run<T>(command: LoadCommand, onEvent: EventHook, timeoutMs: number): Promise<T> {
    const proc = this.ensure();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        proc.off('message', onMessage);
        proc.off('exit', onExit);
      };
      const onMessage = (m: LoadMessage): void => {
        if (m.type === 'event') {
          onEvent(m.name, m.data);
          return;
        }
        if (m.id !== id) return;
        cleanup();
        if (m.ok) resolve(m.result as T);
        else reject(new Error(m.error));
      };
      const onExit = (code: number | null): void => {
        cleanup();
        reject(new Error(`load process exited (code ${code}) during ${command.kind}`));
      };
      // a scenario that overstays is abandoned with its process; the next one gets a fresh load process
      const timer = setTimeout(() => {
        cleanup();
        proc.kill('SIGKILL');
        reject(new Error(`${command.kind} did not finish within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      proc.on('message', onMessage);
      proc.once('exit', onExit);
      proc.send({ type: 'run', id, command });
    });
  }

  stop(): void {
    if (this.proc && this.proc.exitCode === null) this.proc.kill('SIGTERM');
    this.proc = undefined;
  }
}

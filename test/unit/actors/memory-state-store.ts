import type { ActorStateOp, ActorStateStore } from '../../../src/runtime/ports';

/**
 * An actor state store that behaves like Dapr's for what QueueActor relies on: a transaction applies
 * whole or not at all, values are JSON round-tripped, '' is refused. It records every transaction
 * with the JSON size of its operations, counts gets, and can fail the next transaction.
 */
export class MemoryStateStore implements ActorStateStore {
  readonly data = new Map<string, string>();
  readonly transacts: { ops: ActorStateOp[]; bytes: number }[] = [];
  gets = 0;
  failNext = false;

  async get<T = unknown>(key: string): Promise<T | undefined> {
    this.gets++;
    const text = this.data.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async transact(ops: ActorStateOp[]): Promise<void> {
    const staged: [string, string | undefined][] = ops.map((op) => {
      if (op.operation === 'delete') return [op.key, undefined];
      if (op.value === '' || op.value === undefined) throw new Error(`actor state ${op.key}: empty values cannot be stored`);
      return [op.key, JSON.stringify(op.value)];
    });
    if (this.failNext) {
      this.failNext = false;
      throw new Error('state store unavailable');
    }
    for (const [key, text] of staged) {
      if (text === undefined) this.data.delete(key);
      else this.data.set(key, text);
    }
    this.transacts.push({ ops: JSON.parse(JSON.stringify(ops)), bytes: Buffer.byteLength(JSON.stringify(ops)) });
  }

  /** Transactions recorded since `mark` (a previous `transacts.length`). */
  since(mark: number): { ops: ActorStateOp[]; bytes: number }[] {
    return this.transacts.slice(mark);
  }

  keys(): string[] {
    return [...this.data.keys()].sort();
  }
}

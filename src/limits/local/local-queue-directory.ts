import type { PollRecord, QueueDirectory } from '../ports';

/** Poll data and queue names of one process. */
export class LocalQueueDirectory implements QueueDirectory {
  private readonly polls = new Map<string, PollRecord>();
  private readonly names = new Set<string>();

  recordPoll(p: PollRecord): void {
    this.polls.set(`${p.queueName}\u0000${p.domain ?? ''}`, p);
  }
  recordQueue(name: string): void {
    this.names.add(name);
  }
  async pollData(): Promise<PollRecord[]> {
    return [...this.polls.values()];
  }
  async queues(): Promise<string[]> {
    return [...this.names];
  }
  async close(): Promise<void> {}
}

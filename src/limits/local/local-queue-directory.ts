import { LRUCache } from 'lru-cache';
import { POLL_DATA_MAX_ENTRIES, type PollRecord, type QueueDirectory } from '../ports';

/** Poll data and queue names of one process; poll data keeps the most recently polled POLL_DATA_MAX_ENTRIES. */
export class LocalQueueDirectory implements QueueDirectory {
  private readonly polls: LRUCache<string, PollRecord>;
  private readonly names = new Set<string>();

  constructor(maxPollRecords = POLL_DATA_MAX_ENTRIES) {
    this.polls = new LRUCache({ max: maxPollRecords });
  }

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

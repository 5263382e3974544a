import type { ActorContext } from '../../../src/runtime/ports';

/** An actor context without a host: it records the reminders an actor sets and whether it asked to be dropped. */
export class FakeActorContext implements ActorContext {
  readonly reminders = new Map<string, number | null>();
  /** Every setReminder call in order, clears included. */
  readonly reminderLog: Array<[string, number | null]> = [];
  deactivations = 0;

  constructor(
    readonly type: string,
    readonly id: string,
  ) {}

  async setReminder(name: string, dueAt: number | null): Promise<void> {
    this.reminders.set(name, dueAt);
    this.reminderLog.push([name, dueAt]);
  }

  deactivateWhenIdle(): void {
    this.deactivations++;
  }
}

import type { TaskLimits } from '../ports';

/** Rate windows and concurrency slots of one process (TaskDef rateLimitPerFrequency, concurrentExecLimit). */
export class LocalTaskLimits implements TaskLimits {
  private readonly windows = new Map<string, number[]>();
  private readonly slots = new Map<string, Set<string>>();

  async tryRate(taskDefName: string, perFrequency: number, frequencySeconds: number, now: number): Promise<boolean> {
    if (!perFrequency || perFrequency <= 0) return true;
    const since = now - Math.max(1, frequencySeconds) * 1000;
    const w = (this.windows.get(taskDefName) ?? []).filter((t) => t > since);
    if (w.length >= perFrequency) {
      this.windows.set(taskDefName, w);
      return false;
    }
    w.push(now);
    this.windows.set(taskDefName, w);
    return true;
  }

  async tryAcquire(taskDefName: string, limit: number, taskId: string): Promise<boolean> {
    if (!limit || limit <= 0) return true;
    let set = this.slots.get(taskDefName);
    if (!set) this.slots.set(taskDefName, (set = new Set()));
    if (set.has(taskId)) return true;
    if (set.size >= limit) return false;
    set.add(taskId);
    return true;
  }

  async release(taskDefName: string, taskId: string): Promise<void> {
    this.slots.get(taskDefName)?.delete(taskId);
  }

  async close(): Promise<void> {}
}

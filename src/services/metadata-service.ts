import type { TaskDef, WorkflowDef } from '../model/definitions';
import type { MetadataStore } from '../store/ports';

/**
 * Definitions with a read-through cache: the engine reads task definitions synchronously, so all
 * of them are kept in memory and refreshed from the store periodically (other replicas may write).
 */
export class MetadataService {
  private taskDefs = new Map<string, TaskDef>();
  private readonly workflowDefs = new Map<string, { def: WorkflowDef | undefined; at: number }>();
  private refresher?: NodeJS.Timeout;

  constructor(
    readonly store: MetadataStore,
    private readonly cacheTtlMs: number,
  ) {}

  async start(): Promise<void> {
    await this.reloadTaskDefs();
    if (this.cacheTtlMs > 0) {
      this.refresher = setInterval(() => void this.reloadTaskDefs().catch(() => undefined), this.cacheTtlMs);
      this.refresher.unref();
    }
  }

  stop(): void {
    if (this.refresher) clearInterval(this.refresher);
  }

  private async reloadTaskDefs(): Promise<void> {
    const all = await this.store.listTaskDefs();
    this.taskDefs = new Map(all.map((d) => [d.name, d]));
  }

  /** Forgets cached workflow definitions and reloads task definitions (another replica changed them). */
  async refresh(): Promise<void> {
    this.workflowDefs.clear();
    await this.reloadTaskDefs();
  }

  taskDef(name: string): TaskDef | undefined {
    return this.taskDefs.get(name);
  }

  async putTaskDef(def: TaskDef): Promise<void> {
    await this.store.putTaskDef(def);
    this.taskDefs.set(def.name, def);
  }

  async deleteTaskDef(name: string): Promise<boolean> {
    const ok = await this.store.deleteTaskDef(name);
    this.taskDefs.delete(name);
    return ok;
  }

  async getWorkflowDef(name: string, version?: number): Promise<WorkflowDef | undefined> {
    const key = `${name}\u0000${version ?? 'latest'}`;
    const hit = this.workflowDefs.get(key);
    const now = Date.now();
    if (hit && (this.cacheTtlMs === 0 || now - hit.at < this.cacheTtlMs)) return hit.def;
    const def = await this.store.getWorkflowDef(name, version);
    this.workflowDefs.set(key, { def, at: now });
    return def;
  }

  async putWorkflowDef(def: WorkflowDef): Promise<void> {
    await this.store.putWorkflowDef(def);
    this.forget(def.name);
  }

  async deleteWorkflowDef(name: string, version: number): Promise<boolean> {
    const ok = await this.store.deleteWorkflowDef(name, version);
    this.forget(name);
    return ok;
  }

  private forget(name: string): void {
    for (const k of [...this.workflowDefs.keys()]) if (k.startsWith(`${name}\u0000`)) this.workflowDefs.delete(k);
  }
}

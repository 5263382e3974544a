import { LRUCache } from 'lru-cache';
import type { TaskDef, WorkflowDef } from '../model/definitions';
import type { MetadataStore } from '../store/ports';
import { checkDefinitionCount, checkDefinitionSize, DEFAULT_DEFINITION_LIMITS, type DefinitionLimits } from './definition-limits';

const WORKFLOW_DEF_CACHE_ENTRIES = 1000;

/**
 * Definitions with a read-through cache: the engine reads task definitions synchronously, so all
 * of them are kept in memory and refreshed from the store periodically (other replicas may write).
 */
export class MetadataService {
  private taskDefs = new Map<string, TaskDef>();
  /**
   * Workflow definitions (and misses) by name and version asked for; the most recently used only, so starts
   * naming ever new definitions cannot grow it without bound.
   */
  private readonly workflowDefs = new LRUCache<string, { def: WorkflowDef | undefined; at: number }>({ max: WORKFLOW_DEF_CACHE_ENTRIES });
  private refresher?: NodeJS.Timeout;

  constructor(
    readonly store: MetadataStore,
    private readonly cacheTtlMs: number,
    /** How large and how many definitions may be; writes past them are refused. */
    readonly limits: DefinitionLimits = DEFAULT_DEFINITION_LIMITS,
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
    this.withOutputSchema = undefined;
  }

  /** Forgets cached workflow definitions and reloads task definitions (another replica changed them). */
  async refresh(): Promise<void> {
    this.workflowDefs.clear();
    await this.reloadTaskDefs();
  }

  taskDef(name: string): TaskDef | undefined {
    return this.taskDefs.get(name);
  }

  /** Whether any task definition names an output schema: worker results are checked against schemas only then. */
  anyTaskOutputSchema(): boolean {
    return (this.withOutputSchema ??= [...this.taskDefs.values()].some((d) => d.outputSchema));
  }
  /** Cached answer of anyTaskOutputSchema; forgotten whenever the task definitions change. */
  private withOutputSchema: boolean | undefined;

  async putTaskDef(def: TaskDef): Promise<void> {
    checkDefinitionSize('TaskDef', def.name, def, this.limits);
    // Every task definition is held here (the engine reads them synchronously): the map is the count.
    if (!this.taskDefs.has(def.name)) checkDefinitionCount('TaskDef', this.taskDefs.size, this.limits);
    await this.store.putTaskDef(def);
    this.taskDefs.set(def.name, def);
    this.withOutputSchema = undefined;
  }

  async deleteTaskDef(name: string): Promise<boolean> {
    const ok = await this.store.deleteTaskDef(name);
    this.taskDefs.delete(name);
    this.withOutputSchema = undefined;
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
    checkDefinitionSize('WorkflowDef', def.name, def, this.limits);
    if (!(await this.store.getWorkflowDef(def.name, def.version)))
      checkDefinitionCount('WorkflowDef', (await this.store.listWorkflowDefs()).length, this.limits);
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

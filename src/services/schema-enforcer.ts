import type { SchemaRef, TaskDef, WorkflowDef } from '../model/definitions';
import type { SchemaDef } from '../model/schemas';
import type { Task } from '../model/execution';
import type { TaskResult } from '../model/requests';
import type { ExecutionStore, SchemaStore } from '../store/ports';
import { Errors } from '../model/named-errors';
import { schemaViolations, violationText } from './json-schema-check';

// Where definitions' JSON schemas are enforced: a workflow's input when it starts (a 400 that starts
// nothing), a polled task's input against its task definition's input schema before a worker gets it,
// and a worker's COMPLETED result against the output schema (the task FAILED either way, with the
// violations as its reason). A schema named is enforced unless enforceSchema is false.

const enforced = (d: { enforceSchema?: boolean | null }): boolean => d.enforceSchema !== false;
const label = (ref: SchemaRef): string => `${ref.name}${ref.version != null ? `:${ref.version}` : ''}`;

export class SchemaEnforcer {
  constructor(
    private readonly schemas: SchemaStore,
    private readonly executions: ExecutionStore,
    private readonly taskDef: (name: string) => TaskDef | undefined,
    /** Whether any task definition names an output schema (results are not looked at otherwise). */
    private readonly anyTaskOutputSchema: () => boolean,
  ) {}

  private async resolve(ref: SchemaRef): Promise<SchemaDef | undefined> {
    return this.schemas.get(ref.name, ref.version ?? undefined);
  }

  /** Throws a 400 naming every violation when the definition's input schema refuses `input`. */
  async checkWorkflowInput(def: WorkflowDef, input: Record<string, unknown>): Promise<void> {
    const ref = def.inputSchema;
    if (!ref || !enforced(def)) return;
    const schema = await this.resolve(ref);
    if (!schema) throw Errors.INPUT_SCHEMA_MISSING(label(ref), def.name);
    const violations = schemaViolations(schema, input);
    if (violations.length === 0) return;
    throw Errors.WORKFLOW_INPUT_NONCONFORMING(
      `${schema.name}:${schema.version}`,
      violationText(violations),
      violations.map((v) => ({ path: `input${v.path === '/' ? '' : v.path}`, message: v.message })),
    );
  }

  /** The result to apply: a COMPLETED one whose output breaks its task definition's output schema becomes FAILED, saying why. */
  async checkTaskResult(result: TaskResult): Promise<TaskResult> {
    if (result.status !== 'COMPLETED' || !this.anyTaskOutputSchema()) return result;
    const task = await this.executions.getTask(result.taskId);
    const def = task ? this.taskDef(task.taskDefName) : undefined;
    const ref = def?.outputSchema;
    if (!def || !ref || !enforced(def)) return result;
    const schema = await this.resolve(ref);
    const problem = !schema ? `Output schema ${label(ref)} of task ${def.name} does not exist` : this.outputProblem(schema, result.outputData ?? {});
    return problem ? { ...result, status: 'FAILED', reasonForIncompletion: problem } : result;
  }

  /** Why a polled task may not go to its worker: its input breaks its task definition's input schema. */
  async taskInputProblem(task: Task): Promise<string | undefined> {
    const def = this.taskDef(task.taskDefName);
    const ref = def?.inputSchema;
    if (!def || !ref || !enforced(def)) return undefined;
    const schema = await this.resolve(ref);
    if (!schema) return `Input schema ${label(ref)} of task ${def.name} does not exist`;
    const violations = schemaViolations(schema, task.inputData);
    return violations.length === 0
      ? undefined
      : `Task input does not conform to the input schema ${schema.name}:${schema.version}: ${violationText(violations)}`;
  }

  private outputProblem(schema: SchemaDef, output: Record<string, unknown>): string | undefined {
    const violations = schemaViolations(schema, output);
    return violations.length === 0
      ? undefined
      : `Task output does not conform to the output schema ${schema.name}:${schema.version}: ${violationText(violations)}`;
  }
}

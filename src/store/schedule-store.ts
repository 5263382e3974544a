import type { ScheduleExecution, WorkflowSchedule } from '../model/schedules';

/** Filter and page of the executions search (newest scheduled time first). */
export interface ScheduleExecutionQuery {
  scheduleName?: string;
  workflowName?: string;
  state?: ScheduleExecution['state'];
  /** Free text: the schedule name, workflow name or workflow id, exactly. */
  text?: string;
  /** Oldest first instead of newest first. */
  ascending?: boolean;
  start: number;
  size: number;
}

/**
 * Schedules, the slot each last handled, and the record of their firings. The slot is the durable
 * "last fired" mark: it only moves forward, by compare-and-set, so two activations of one schedule
 * (a replica taking over) never both claim a slot.
 */
export interface ScheduleStore {
  putSchedule(s: WorkflowSchedule): Promise<void>;
  getSchedule(name: string): Promise<WorkflowSchedule | undefined>;
  listSchedules(): Promise<WorkflowSchedule[]>;
  /** How many there are, counting no further than `atMost` (bounded work however many are stored): for the cap on creating more. */
  countSchedules(atMost: number): Promise<number>;
  /** Deletes the schedule and its slot mark (its executions stay until they expire); false when it did not exist. */
  deleteSchedule(name: string): Promise<boolean>;
  /** The last slot handled, or undefined before the first. */
  lastSlot(name: string): Promise<number | undefined>;
  /**
   * Moves the mark from `expected` (undefined: none yet) to `slot`; false, and nothing written,
   * when the stored mark is not `expected` (another activation moved it).
   */
  advanceSlot(name: string, expected: number | undefined, slot: number): Promise<boolean>;
  /** Writes (or overwrites, by executionId) one execution record. */
  putExecution(e: ScheduleExecution): Promise<void>;
  /** Executions matching the query, ordered by scheduled time (newest first unless `ascending`), and how many match in all. */
  searchExecutions(q: ScheduleExecutionQuery): Promise<{ results: ScheduleExecution[]; totalHits: number }>;
  /** "Pause all": a cluster-wide switch every firing reads. */
  setAllPaused(paused: boolean): Promise<void>;
  allPaused(): Promise<boolean>;
}

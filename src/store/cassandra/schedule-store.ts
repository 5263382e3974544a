import { type Client, type QueryOptions, types } from 'cassandra-driver';
import type { ScheduleExecution, WorkflowSchedule } from '../../model/schedules';
import type { ScheduleExecutionQuery, ScheduleStore } from '../schedule-store';
import { countRowsUpTo } from './count-rows';
import { assertKeyspaceName } from './statements';

const DAY_MS = 24 * 3600 * 1000;
/** Execution rows expire after this (the SQLite store keeps the same span). */
export const SCHEDULE_EXECUTION_TTL_SECONDS = 7 * 24 * 3600;
const PAGE = 500;
/** Partitions read at once when a page spans many schedules. */
const PARALLEL_READS = 16;

/** Schedules over Cassandra (migration 004); the slot mark moves by lightweight transactions only. */
export class CassandraScheduleStore implements ScheduleStore {
  private readonly q;

  constructor(
    private readonly client: Client,
    keyspace: string,
    private readonly consistency: types.consistencies = types.consistencies.localQuorum,
    private readonly now: () => number = Date.now,
  ) {
    const ks = assertKeyspaceName(keyspace);
    this.q = {
      put: `INSERT INTO ${ks}.schedules (name, schedule_json) VALUES (?, ?)`,
      get: `SELECT schedule_json FROM ${ks}.schedules WHERE name = ?`,
      list: `SELECT schedule_json FROM ${ks}.schedules`,
      names: `SELECT name FROM ${ks}.schedules`,
      del: `DELETE FROM ${ks}.schedules WHERE name = ?`,
      delSlot: `DELETE FROM ${ks}.schedule_slots WHERE name = ?`,
      slot: `SELECT last_slot FROM ${ks}.schedule_slots WHERE name = ?`,
      firstSlot: `INSERT INTO ${ks}.schedule_slots (name, last_slot) VALUES (?, ?) IF NOT EXISTS`,
      moveSlot: `UPDATE ${ks}.schedule_slots SET last_slot = ? WHERE name = ? IF last_slot = ?`,
      putExec: `INSERT INTO ${ks}.schedule_executions (schedule_name, day, scheduled_time, execution_id, state, execution_json) VALUES (?, ?, ?, ?, ?, ?) USING TTL ${SCHEDULE_EXECUTION_TTL_SECONDS}`,
      execs: `SELECT execution_json FROM ${ks}.schedule_executions WHERE schedule_name = ? AND day = ?`,
      newest: `SELECT execution_json FROM ${ks}.schedule_executions WHERE schedule_name = ? AND day = ? LIMIT ?`,
      oldest: `SELECT execution_json FROM ${ks}.schedule_executions WHERE schedule_name = ? AND day = ? ORDER BY scheduled_time ASC LIMIT ?`,
      count: `SELECT COUNT(*) AS n FROM ${ks}.schedule_executions WHERE schedule_name = ? AND day = ?`,
      setSetting: `INSERT INTO ${ks}.scheduler_settings (name, value) VALUES (?, ?)`,
      getSetting: `SELECT value FROM ${ks}.scheduler_settings WHERE name = ?`,
    };
  }

  private opts(extra: QueryOptions = {}): QueryOptions {
    return { prepare: true, consistency: this.consistency, isIdempotent: true, ...extra };
  }

  private async lwt(query: string, params: unknown[]): Promise<boolean> {
    const rs = await this.client.execute(query, params, this.opts({ serialConsistency: types.consistencies.localSerial }));
    return rs.first()?.get('[applied]') === true;
  }

  async putSchedule(s: WorkflowSchedule): Promise<void> {
    await this.client.execute(this.q.put, [s.name, JSON.stringify(s)], this.opts());
  }
  async getSchedule(name: string): Promise<WorkflowSchedule | undefined> {
    const json = (await this.client.execute(this.q.get, [name], this.opts())).first()?.get('schedule_json') as string | undefined;
    return json ? (JSON.parse(json) as WorkflowSchedule) : undefined;
  }
  async listSchedules(): Promise<WorkflowSchedule[]> {
    const out: WorkflowSchedule[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(this.q.list, [], this.opts({ fetchSize: PAGE, pageState }));
      for (const r of rs.rows) out.push(JSON.parse(r.get('schedule_json') as string) as WorkflowSchedule);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }
  countSchedules(atMost: number): Promise<number> {
    return countRowsUpTo(this.client, this.q.names, this.opts(), atMost);
  }
  async deleteSchedule(name: string): Promise<boolean> {
    if (!(await this.getSchedule(name))) return false;
    await this.client.execute(this.q.delSlot, [name], this.opts());
    await this.client.execute(this.q.del, [name], this.opts());
    return true;
  }
  async lastSlot(name: string): Promise<number | undefined> {
    // Serial read: the mark is written by lightweight transactions, a plain read could miss an uncommitted one.
    const rs = await this.client.execute(this.q.slot, [name], this.opts({ consistency: types.consistencies.localSerial }));
    const v = rs.first()?.get('last_slot') as types.Long | null | undefined;
    return v == null ? undefined : v.toNumber();
  }
  async advanceSlot(name: string, expected: number | undefined, slot: number): Promise<boolean> {
    const s = types.Long.fromNumber(slot);
    return expected === undefined ? this.lwt(this.q.firstSlot, [name, s]) : this.lwt(this.q.moveSlot, [s, name, types.Long.fromNumber(expected)]);
  }
  async putExecution(e: ScheduleExecution): Promise<void> {
    const day = Math.floor(e.scheduledTime / DAY_MS);
    await this.client.execute(
      this.q.putExec,
      [e.scheduleName, day, types.Long.fromNumber(e.scheduledTime), e.executionId, e.state, JSON.stringify(e)],
      this.opts(),
    );
  }
  async searchExecutions(q: ScheduleExecutionQuery): Promise<{ results: ScheduleExecution[]; totalHits: number }> {
    // Partitions are (schedule, day) over the retention span; the schedules asked for, newest day first.
    const names = q.scheduleName !== undefined ? [q.scheduleName] : (await this.listSchedules()).map((s) => s.name);
    const today = Math.floor(this.now() / DAY_MS);
    const days = Array.from({ length: SCHEDULE_EXECUTION_TTL_SECONDS / 86400 + 2 }, (_, i) => today + 1 - i);
    if (q.ascending) days.reverse();
    const order = executionOrder(q.ascending === true);
    const filtered = q.workflowName !== undefined || q.state !== undefined || q.text !== undefined;
    if (filtered) {
      // Filters are on the JSON, not the key: every row of the span is read and matched here.
      const all: ScheduleExecution[] = [];
      for (const name of names) for (const rows of await Promise.all(days.map((day) => this.readPartition(name, day)))) all.push(...rows);
      const hits = all
        .filter((e) => (q.workflowName === undefined || e.workflowName === q.workflowName) && (q.state === undefined || e.state === q.state))
        .filter((e) => q.text === undefined || e.scheduleName === q.text || e.workflowName === q.text || e.workflowId === q.text)
        .sort(order);
      return { results: hits.slice(q.start, q.start + q.size), totalHits: hits.length };
    }
    // Unfiltered (the console's list of one schedule): counted per partition, then only the rows up to the
    // page's end are read, day by day in the asked order, each partition in its clustering order (or reversed).
    // One schedule's days at a time in parallel: a bounded number of requests in flight however many schedules there are.
    const counts: number[][] = [];
    for (const name of names) counts.push(await Promise.all(days.map((day) => this.countPartition(name, day))));
    const totalHits = counts.flat().reduce((a, b) => a + b, 0);
    const end = Math.min(q.start + q.size, totalHits);
    const taken: ScheduleExecution[] = [];
    for (let d = 0; d < days.length && taken.length < end; d++) {
      const wanted = end - taken.length;
      const sources = names.filter((_, n) => counts[n]![d]! > 0);
      const rows: ScheduleExecution[] = [];
      for (let i = 0; i < sources.length; i += PARALLEL_READS) {
        const slice = sources.slice(i, i + PARALLEL_READS);
        for (const r of await Promise.all(slice.map((name) => this.readPartition(name, days[d]!, { limit: wanted, ascending: q.ascending === true }))))
          rows.push(...r);
      }
      taken.push(...rows.sort(order).slice(0, wanted));
    }
    return { results: taken.slice(q.start, end), totalHits };
  }

  private async countPartition(name: string, day: number): Promise<number> {
    const row = (await this.client.execute(this.q.count, [name, day], this.opts())).first();
    return row ? (row.get('n') as types.Long).toNumber() : 0;
  }

  /** One (schedule, day) partition: all of it, or its first `limit` rows newest (or oldest) first. */
  private async readPartition(name: string, day: number, page?: { limit: number; ascending: boolean }): Promise<ScheduleExecution[]> {
    const query = page ? (page.ascending ? this.q.oldest : this.q.newest) : this.q.execs;
    const params = page ? [name, day, page.limit] : [name, day];
    const out: ScheduleExecution[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(query, params, this.opts({ fetchSize: PAGE, pageState }));
      for (const r of rs.rows) out.push(JSON.parse(r.get('execution_json') as string) as ScheduleExecution);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out;
  }

  async setAllPaused(paused: boolean): Promise<void> {
    await this.client.execute(this.q.setSetting, ['allPaused', String(paused)], this.opts());
  }
  async allPaused(): Promise<boolean> {
    return (await this.client.execute(this.q.getSetting, ['allPaused'], this.opts())).first()?.get('value') === 'true';
  }
}

/** Newest first (oldest first when ascending), ties by execution id: the order of the SQLite store too. */
const executionOrder =
  (ascending: boolean) =>
  (a: ScheduleExecution, b: ScheduleExecution): number =>
    (ascending ? a.scheduledTime - b.scheduledTime : b.scheduledTime - a.scheduledTime) || a.executionId.localeCompare(b.executionId);

import { type Client, type QueryOptions, types } from 'cassandra-driver';
import { entryWritesAt, type Write } from './index-plan';
import { type OpenFamily, pageBelowFloor, pageOf, sealedBefore } from './generations';
import { bucketOf, type IndexLayout, toNumber } from './rows';
import type { ExecutionStatements } from './statements';

// Reads an open-execution index family (generations.ts) and keeps it short on the way: every sealed
// generation met is carried (its valid entries copied to the carried index) and dropped whole, and
// the floor moves past it, so later reads start above it and never meet its tombstones.

export interface OpenEntry {
  workflowId: string;
  /** Definition version as the entry (or, once verified, the execution) says; null in the recovery index. */
  version: number | null;
  /** The young generation the entry was first written to (see IndexKeys). */
  fromGen: number;
  shard: number;
}

/** Whether each entry still stands, read from the executions (and their current version). */
export type Verify = (entries: OpenEntry[]) => Promise<Array<{ valid: boolean; version: number | null }>>;

export interface OpenIndexOptions {
  consistency: types.consistencies;
  layout: IndexLayout;
  now: () => number;
  /** Runs writes, skipping registry rows already written (the store's cache). */
  run: (writes: Write[]) => Promise<void>;
}

const PAGE = 500;
const micros = (ms: number): types.Long => types.Long.fromNumber(ms).multiply(1000);

export class OpenIndexReader {
  constructor(
    private readonly client: Client,
    private readonly q: ExecutionStatements,
    private readonly opts: OpenIndexOptions,
  ) {}

  private options(extra: QueryOptions = {}): QueryOptions {
    return { prepare: true, consistency: this.opts.consistency, isIdempotent: true, ...extra };
  }

  /** Carries and drops the sealed generations of a family, and moves its floors: keeps later reads short. */
  async seal(family: OpenFamily, verify: Verify): Promise<void> {
    for await (const entries of this.read(family, verify, true, { sealOnly: true })) void entries;
  }

  /**
   * The valid entries of a family, a page at a time. Entries of open generations are taken as
   * written unless `verifyYoung`; carried ones, and those of sealed generations (before carrying
   * them), are verified. The carried index is read first and every level newest generation first,
   * so entries carried during this read are not met again in it.
   */
  async *read(family: OpenFamily, verify: Verify, verifyYoung: boolean, opts: { sealOnly?: boolean } = {}): AsyncIterable<OpenEntry[]> {
    const { layout } = this.opts;
    const readStart = this.opts.now();
    // Anything written after this read started carries a later timestamp (up to the clock skew the margin allows).
    const before = micros(readStart - layout.sealMarginMs);
    const carriedGen = bucketOf(readStart, layout.carriedGenMs);
    const levels = [
      { index: family.carried, genMs: layout.carriedGenMs, verifyAll: true },
      { index: family.young, genMs: layout.genMs, verifyAll: verifyYoung },
    ];
    for (const level of levels) {
      const sealed = sealedBefore(readStart, level.genMs, layout.sealMarginMs);
      const floor = await this.floor(level.index);
      const pages = await this.column(this.q.selectOpenPages, [level.index, pageOf(floor, level.genMs)], 'page');
      const gens: number[] = [];
      for (const page of pages) gens.push(...(await this.column(this.q.selectOpenGens, [level.index, page, floor], 'gen')));
      gens.sort((a, b) => b - a);

      for (const gen of gens) {
        const isSealed = gen < sealed;
        if (opts.sealOnly && !isSealed) continue;
        for (let shard = 0; shard < family.shards; shard++) {
          for await (const entries of this.entries(level.index, gen, shard)) {
            const checked = isSealed || level.verifyAll ? await verify(entries) : entries.map((e) => ({ valid: true, version: e.version }));
            const valid = entries.flatMap((e, i) => (checked[i]!.valid ? [{ ...e, version: checked[i]!.version }] : []));
            if (isSealed) {
              await this.opts.run(
                valid.flatMap((e) => entryWritesAt(this.q, family.carried, carriedGen, layout.carriedGenMs, shard, e.workflowId, e.version, e.fromGen)),
              );
            } else {
              // A young entry may belong to a turn still in flight (recovery entries precede their batch): its
              // delete is timestamped before the read. A carried one that no longer stands never will again.
              const at = level.index === family.young ? this.options({ timestamp: before }) : this.options();
              const stale = entries.filter((_, i) => !checked[i]!.valid);
              await Promise.all(stale.map((e) => this.client.execute(this.q.deleteOpenEntry, [level.index, gen, shard, e.workflowId], at)));
            }
            if (valid.length > 0) yield valid;
          }
        }
        if (isSealed)
          await Promise.all(
            Array.from({ length: family.shards }, (_, shard) =>
              this.client.execute(this.q.dropOpenGeneration, [level.index, gen, shard], this.options({ timestamp: before })),
            ),
          );
      }

      if (sealed > floor) {
        await this.client.execute(this.q.setOpenFloor, [sealed, level.index], this.options({ timestamp: micros(sealed) }));
        const gone = pages.filter((page) => pageBelowFloor(page, level.genMs, sealed));
        await Promise.all(
          gone.flatMap((page) => [
            this.client.execute(this.q.dropOpenGens, [level.index, page], this.options()),
            this.client.execute(this.q.deleteOpenPage, [level.index, page], this.options()),
          ]),
        );
      }
    }
  }

  private async floor(index: string): Promise<number> {
    const row = (await this.client.execute(this.q.selectOpenFloor, [index], this.options())).first();
    const floor = row?.get('floor') as unknown;
    return floor == null ? 0 : toNumber(floor);
  }

  private async column(query: string, params: unknown[], column: string): Promise<number[]> {
    const out: number[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(query, params, this.options({ fetchSize: PAGE, pageState }));
      for (const r of rs.rows) out.push(toNumber(r.get(column)));
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out;
  }

  private async *entries(index: string, gen: number, shard: number): AsyncIterable<OpenEntry[]> {
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(this.q.selectOpenEntries, [index, gen, shard], this.options({ fetchSize: PAGE, pageState }));
      pageState = rs.pageState ?? undefined;
      yield rs.rows.map((r) => ({
        workflowId: r.get('workflow_id') as string,
        version: (r.get('workflow_version') as number | null) ?? null,
        fromGen: toNumber(r.get('from_gen')),
        shard,
      }));
    } while (pageState);
  }
}

// Part of every name: suites against a persistent store (the real Cassandra) run again in a new
// process that may get the same pid.
const RUN = Date.now().toString(36);
let counter = 0;

/** A name unique to this process and run, so tests never share definitions or queues. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid}_${counter}_${RUN}`;
}

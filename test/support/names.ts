let counter = 0;

/** A name unique within this process, so tests never share definitions or queues. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid}_${counter}`;
}

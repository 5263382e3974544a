// The values one metric label may take. Names come from what clients send (workflow names, task types,
// queue names), and every distinct value is a series kept for the life of the process: each label
// admits at most `max` values of its own, and only values the engine has used (a task scheduled, an
// execution run), never names a client merely asked about. Everything else is counted under OTHER.

/** The label value that stands for every value without a series of its own. */
export const OTHER_LABEL_VALUE = 'other';

export class LabelValues {
  private readonly admitted = new Set<string>();

  constructor(private readonly max: number) {}

  /** `value` when it has, or now takes, its own series; OTHER_LABEL_VALUE when `admit` is false or the label is full. */
  of(value: string, admit = true): string {
    if (this.admitted.has(value)) return value;
    if (!admit || this.admitted.size >= this.max || value === OTHER_LABEL_VALUE) return OTHER_LABEL_VALUE;
    this.admitted.add(value);
    return value;
  }

  /** The values with a series of their own. */
  values(): IterableIterator<string> {
    return this.admitted.values();
  }
}

/** One sample of Prometheus's text exposition format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (as served at /metrics): samples only, comments skipped. */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** Metric family names of the exposition (`# TYPE` lines): what a dashboard may query, before suffixes. */
export function familyNames(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]!));
}

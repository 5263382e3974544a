/** Reading a Dockerfile's instructions, enough to replay the ones that take files from the build context. */

/** The Dockerfile's instructions, one string each, with line continuations joined and comments dropped. */
export function instructions(dockerfile: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of dockerfile.split('\n')) {
    const line = raw.trim();
    if (!current && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    out.push((current + line).trim());
    current = '';
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/**
 * The instructions that read the build context, each after the WORKDIR in force at that point:
 * COPY and ADD without --from (those copy from another stage, not from the context).
 */
export function contextCopies(dockerfile: string): string[] {
  const out: string[] = [];
  let workdir = '/';
  for (const ins of instructions(dockerfile)) {
    const [keyword] = ins.split(/\s+/, 1);
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') workdir = '/';
    if (upper === 'WORKDIR') workdir = ins.slice(keyword.length).trim();
    if ((upper === 'COPY' || upper === 'ADD') && !/\s--from=/.test(` ${ins}`)) {
      out.push(`WORKDIR ${workdir}`, ins);
    }
  }
  return out;
}

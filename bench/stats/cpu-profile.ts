/** Where a V8 .cpuprofile (node --cpu-prof) spent its time: self time per function, largest first (pure). */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotFunction {
  name: string;
  where: string;
  selfMs: number;
  selfPercent: number;
}

/** `url` made relative to `root` (and node_modules shortened) so the table stays readable. */
function shortLocation(url: string, line: number, root: string): string {
  if (!url) return '';
  let path = url.replace(/^file:\/\//, '');
  if (root && path.startsWith(root)) path = path.slice(root.length).replace(/^\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) path = path.slice(nm);
  return `${path}:${line + 1}`;
}

export function hotFunctions(profile: CpuProfile, root: string, top = 20): HotFunction[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, { name: string; where: string; us: number }>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node || dt <= 0) return;
    totalUs += dt;
    const name = node.callFrame.functionName || '(anonymous)';
    const where = shortLocation(node.callFrame.url, node.callFrame.lineNumber, root);
    const key = `${name}@${where}`;
    const entry = selfUs.get(key) ?? { name, where, us: 0 };
    entry.us += dt;
    selfUs.set(key, entry);
  });
  return [...selfUs.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((e) => ({
      name: e.name,
      where: e.where,
      selfMs: Math.round(e.us / 100) / 10,
      selfPercent: totalUs > 0 ? Math.round((e.us / totalUs) * 1000) / 10 : 0,
    }));
}

/** Where a V8 .cpuprofile (node --cpu-prof) spent its time: self time per function, largest first (pure). */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
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

export interface HotModule {
  module: string;
  selfMs: number;
  selfPercent: number;
}

/** What a frame belongs to: an npm package, a directory of Baton's dist/, node's core, or V8/native code (by name). */
export function moduleOf(url: string, functionName: string, root: string): string {
  if (!url) return /^\(.*\)$/.test(functionName) ? functionName : 'native (socket writes, buffers, crypto)';
  if (url.startsWith('node:')) return 'node core';
  let path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 'node_modules/'.length).split('/');
    return (parts[0] ?? '').startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? path);
  }
  if (root && path.startsWith(root)) path = path.slice(root.length).replace(/^\//, '');
  const dirs = path.split('/').slice(0, -1);
  return dirs.slice(0, dirs[0] === 'dist' ? 3 : 2).join('/') || path;
}

/**
 * Self time per module (see moduleOf), largest first (pure). Native code and node's core are charged to
 * the nearest caller outside them (a socket write to the package that wrote), as the cost is the caller's.
 */
export function hotModules(profile: CpuProfile, root: string, top = 10): HotModule[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const charged = (node: ProfileNode): string => {
    const own = moduleOf(node.callFrame.url, node.callFrame.functionName, root);
    if (own.startsWith('(') && own.endsWith(')')) return own;
    for (let at: ProfileNode | undefined = node; at; at = byId.get(parent.get(at.id) ?? -1)) {
      const m = moduleOf(at.callFrame.url, at.callFrame.functionName, root);
      if (at.callFrame.url && m !== 'node core') return m;
    }
    return own;
  };
  const selfUs = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node || dt <= 0) return;
    totalUs += dt;
    const m = charged(node);
    selfUs.set(m, (selfUs.get(m) ?? 0) + dt);
  });
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([module, us]) => ({ module, selfMs: Math.round(us / 100) / 10, selfPercent: totalUs > 0 ? Math.round((us / totalUs) * 1000) / 10 : 0 }));
}

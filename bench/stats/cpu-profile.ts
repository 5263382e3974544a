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

/** Self time (µs) of each sample's node summed under `keyOf(node)`, and the total sampled. */
function selfTimeBy(profile: CpuProfile, keyOf: (node: ProfileNode) => string): { byKey: Map<string, number>; totalUs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byKey = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node || dt <= 0) return;
    totalUs += dt;
    const key = keyOf(node);
    byKey.set(key, (byKey.get(key) ?? 0) + dt);
  });
  return { byKey, totalUs };
}

/** The `top` keys by self time, as milliseconds and a share of the total (one decimal each). */
function largest(t: { byKey: Map<string, number>; totalUs: number }, top: number): Array<{ key: string; selfMs: number; selfPercent: number }> {
  return [...t.byKey.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => ({ key, selfMs: Math.round(us / 100) / 10, selfPercent: t.totalUs > 0 ? Math.round((us / t.totalUs) * 1000) / 10 : 0 }));
}

export function hotFunctions(profile: CpuProfile, root: string, top = 20): HotFunction[] {
  const frames = new Map<string, { name: string; where: string }>();
  const time = selfTimeBy(profile, (node) => {
    const name = node.callFrame.functionName || '(anonymous)';
    const where = shortLocation(node.callFrame.url, node.callFrame.lineNumber, root);
    const key = `${name}@${where}`;
    frames.set(key, { name, where });
    return key;
  });
  return largest(time, top).map(({ key, selfMs, selfPercent }) => ({ ...frames.get(key)!, selfMs, selfPercent }));
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
  return largest(selfTimeBy(profile, charged), top).map(({ key, selfMs, selfPercent }) => ({ module: key, selfMs, selfPercent }));
}

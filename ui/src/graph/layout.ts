import dagre from '@dagrejs/dagre';
import type { GraphNode, WorkflowGraph } from './workflow-graph';

// Places the graph's nodes top to bottom with dagre; loop edges back are left out of the layout.

export const NODE_SIZE: Record<GraphNode['kind'], { width: number; height: number }> = {
  task: { width: 210, height: 62 },
  start: { width: 90, height: 32 },
  end: { width: 90, height: 32 },
  loopEnd: { width: 120, height: 32 },
};

export interface Positioned {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Top-left corners, as React Flow places nodes. */
export function layoutGraph(g: WorkflowGraph): Map<string, Positioned> {
  const d = new dagre.graphlib.Graph({ multigraph: true });
  d.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 44, marginx: 16, marginy: 16 });
  d.setDefaultEdgeLabel(() => ({}));
  for (const n of g.nodes) d.setNode(n.id, { ...NODE_SIZE[n.kind] });
  for (const e of g.edges) if (!e.back) d.setEdge(e.source, e.target, {}, e.id);
  dagre.layout(d);
  const out = new Map<string, Positioned>();
  for (const n of g.nodes) {
    const p = d.node(n.id);
    const { width, height } = NODE_SIZE[n.kind];
    out.set(n.id, { id: n.id, x: p.x - width / 2, y: p.y - height / 2, width, height });
  }
  return out;
}

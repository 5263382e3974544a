import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useMemo } from 'react';
import { layoutGraph } from './layout';
import type { GraphNode, WorkflowGraph } from './workflow-graph';

type FlowNode = Node<{ g: GraphNode; selected: boolean }, 'wf'>;

const TaskNode = memo(function TaskNode({ data }: NodeProps<FlowNode>) {
  const { g, selected } = data;
  const cls = ['wf-node', g.status ? `s-${g.status}` : '', g.kind !== 'task' ? 'pseudo' : '', g.dynamic ? 'dynamic' : '', selected ? 'selected' : ''].join(' ');
  return (
    <div
      className={cls}
      data-testid="graph-node"
      data-node={g.id}
      data-ref={g.ref ?? ''}
      data-status={g.status ?? 'NOT_RUN'}
      title={g.status ? `${g.label}: ${g.status}` : g.label}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      {g.kind === 'task' ? (
        <>
          <div className="name">{g.label}</div>
          <div className="meta">
            {g.ref} · {g.type}
            {g.iterations ? ` · ×${g.iterations}` : ''}
            {g.attempts > 1 && g.type !== 'DO_WHILE' ? ` · ${g.attempts} runs` : ''}
          </div>
          <div className="meta">
            {g.status ? g.status.replace(/_/g, ' ') : g.dynamic ? 'dynamic' : ''}
            {g.subWorkflowId ? ' · sub-workflow ↗' : ''}
          </div>
        </>
      ) : (
        <div className="name">{g.label}</div>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { wf: TaskNode };

export function WorkflowDiagram({
  graph,
  selected,
  onSelect,
  testId = 'graph',
}: {
  graph: WorkflowGraph;
  selected?: string;
  onSelect?: (n: GraphNode) => void;
  testId?: string;
}) {
  const positions = useMemo(() => layoutGraph(graph), [graph]);
  const nodes = useMemo<FlowNode[]>(
    () =>
      graph.nodes.map((g) => {
        const p = positions.get(g.id)!;
        return {
          id: g.id,
          type: 'wf',
          position: { x: p.x, y: p.y },
          width: p.width,
          height: p.height,
          data: { g, selected: g.id === selected },
          draggable: false,
          connectable: false,
        };
      }),
    [graph, positions, selected],
  );
  const edges = useMemo<Edge[]>(
    () =>
      graph.edges.map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        label: e.label,
        type: e.back ? 'smoothstep' : 'default',
        animated: e.back,
        markerEnd: { type: MarkerType.ArrowClosed, color: e.taken ? 'var(--edge-taken)' : 'var(--edge)' },
        style: { stroke: e.taken ? 'var(--edge-taken)' : 'var(--edge)', strokeWidth: e.taken ? 2.5 : 1.2, ...(e.back ? { strokeDasharray: '4 3' } : {}) },
        data: { taken: e.taken },
        className: e.taken ? 'taken' : '',
      })),
    [graph],
  );
  return (
    <div
      className="graph"
      data-testid={testId}
      // Keyboard: Tab moves between nodes (React Flow makes them focusable), Enter or Space opens one.
      onKeyDown={(e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        const id = (e.target as HTMLElement).closest('.react-flow__node')?.getAttribute('data-id');
        const g = id ? graph.nodes.find((n) => n.id === id) : undefined;
        if (!g) return;
        e.preventDefault();
        onSelect?.(g);
      }}
    >
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        fitViewOptions={{ padding: 0.08, minZoom: 0.55, maxZoom: 1 }}
        minZoom={0.1}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable
        onNodeClick={(_, n) => onSelect?.((n as FlowNode).data.g)}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={20} size={1} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

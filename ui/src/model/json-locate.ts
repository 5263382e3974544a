import { jsonLanguage } from '@codemirror/lang-json';

// Where a server validation error's path (`workflowDefs.0.tasks.1.name`) points in the editor's
// JSON text, so the message can sit on that line. The server prefixes the body's name (and the
// index in a list it was sent in): leading segments the document does not have are skipped.

type Node = NonNullable<ReturnType<ReturnType<typeof jsonLanguage.parser.parse>['topNode']['getChild']>>;

export interface Span {
  from: number;
  to: number;
}

const VALUE = new Set(['Object', 'Array', 'String', 'Number', 'True', 'False', 'Null']);

function values(node: Node): Node[] {
  const out: Node[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (VALUE.has(c.name)) out.push(c);
  return out;
}

function child(node: Node, segment: string, text: string): { key: Span; value: Node } | undefined {
  if (node.name === 'Object') {
    for (let p = node.firstChild; p; p = p.nextSibling) {
      if (p.name !== 'Property') continue;
      const name = p.getChild('PropertyName');
      const value = values(p)[0];
      if (!name || !value) continue;
      let key: unknown;
      try {
        key = JSON.parse(text.slice(name.from, name.to));
      } catch {
        continue;
      }
      if (key === segment) return { key: { from: name.from, to: name.to }, value };
    }
  }
  if (node.name === 'Array' && /^\d+$/.test(segment)) {
    const v = values(node)[Number(segment)];
    if (v) return { key: { from: v.from, to: v.to }, value: v };
  }
  return undefined;
}

/** The span of the deepest part of `path` found in `text`; the whole first line when nothing matches. */
export function locatePath(text: string, path: string | undefined): Span {
  const tree = jsonLanguage.parser.parse(text);
  const root = values(tree.topNode as Node)[0];
  const firstLine = { from: 0, to: Math.max(0, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n')) };
  if (!root || !path) return firstLine;
  const segments = path.split('.').filter(Boolean);
  let best: { depth: number; span: Span } = { depth: 0, span: firstLine };
  for (let skip = 0; skip < segments.length; skip++) {
    let at = root;
    let depth = 0;
    let span: Span = firstLine;
    for (const seg of segments.slice(skip)) {
      const next = child(at, seg, text);
      if (!next) break;
      at = next.value;
      span = next.key;
      depth++;
    }
    if (depth > best.depth) best = { depth, span };
    if (depth === segments.length - skip) break;
  }
  return best.span;
}

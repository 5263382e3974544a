import fs from 'node:fs';
import path from 'node:path';
import { assertConsoleBuilt } from '../support/browser';

// The console's first load is its entry chunk with what that imports statically (scripts and
// styles), read from the built console's manifest. The JSON editor (CodeMirror) and the diagram
// (React Flow, d3) load with the views that use them, so the first load stays small.

const DIR = path.resolve(__dirname, '../../dist/ui');
const FIRST_LOAD_LIMIT = 300 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

function firstLoad(): { files: string[]; bytes: number } {
  const manifest = JSON.parse(fs.readFileSync(path.join(DIR, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const files = new Set<string>();
  const visit = (key: string): void => {
    const chunk = manifest[key]!;
    if (files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  const entries = Object.keys(manifest).filter((k) => manifest[k]!.isEntry);
  expect(entries).toHaveLength(1);
  visit(entries[0]!);
  return { files: [...files], bytes: [...files].reduce((n, f) => n + fs.statSync(path.join(DIR, f)).size, 0) };
}

test('the first load (entry chunk and its static imports) is at most 300 kB, without the editor or the diagram', () => {
  assertConsoleBuilt();
  const { files, bytes } = firstLoad();
  expect(bytes).toBeLessThanOrEqual(FIRST_LOAD_LIMIT);
  expect(files.filter((f) => /json-editor|workflow-graph/.test(f))).toEqual([]);
  // The index page asks for nothing beyond that first load (no lazy chunk preloaded with it).
  const html = fs.readFileSync(path.join(DIR, 'index.html'), 'utf8');
  const asked = [...html.matchAll(/(?:src|href)="\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  expect(asked.length).toBeGreaterThan(0);
  expect(asked.filter((f) => !files.includes(f))).toEqual([]);
});

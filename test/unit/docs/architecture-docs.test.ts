import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// docs/architecture.md's folder tree names every folder and top-level module of src/, so a newcomer
// finds each one there.

const root = join(__dirname, '..', '..', '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const tree = doc.slice(doc.indexOf('## Folders')).split('```')[1]!;

describe('docs/architecture.md', () => {
  it('names every folder and top-level module of src/ in its folder tree', () => {
    const entries = readdirSync(join(root, 'src'), { withFileTypes: true }).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    const named = (entry: string) => new RegExp(`(^|[\\s,])${entry.replace('.', '\\.')}(?=[\\s,]|$)`, 'm').test(tree);
    expect(entries.filter((e) => !named(e))).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FieldsSchema } from '../../../src/config';

// docs/configuration.md is where an operator looks a setting up: every variable the server reads is
// there, and nothing there is a variable the server no longer reads.
describe('docs/configuration.md and src/config.ts', () => {
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'configuration.md'), 'utf8');
  // The first cell of a row names one variable or several (`A`, `B`; `A` (or `B`)).
  const firstCells = [...doc.matchAll(/^\|([^|\n]*)\|/gm)].map((m) => m[1]!);
  const documented = new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
  const read = Object.keys(FieldsSchema.shape);

  test('every variable of the config schema has a row', () => {
    expect(read.filter((v) => !documented.has(v))).toEqual([]);
  });

  test('every documented row is a variable the config schema reads', () => {
    expect([...documented].filter((v) => !read.includes(v))).toEqual([]);
  });
});

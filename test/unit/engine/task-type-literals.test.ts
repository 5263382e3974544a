import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { TaskTypeName } from '../../../src/engine/tasks/names';

// What a task type does is asked of its module (src/engine/tasks/): no other source file tests a type by its name.

const root = join(__dirname, '..', '..', '..');
const names = new Set<string>(Object.values(TaskTypeName));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every string literal of a file that is a known task type name, with its line. */
function nameLiterals(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && names.has(node.text)) {
      found.push(`${relative(root, file)}:${src.getLineAndCharacterOfPosition(node.getStart()).line + 1} '${node.text}'`);
    }
    node.forEachChild(visit);
  };
  visit(src);
  return found;
}

describe('task type names', () => {
  const tasksDir = join(root, 'src', 'engine', 'tasks') + sep;

  it('no source file outside src/engine/tasks/ names a task type in a string literal', () => {
    const outside = sourceFiles(join(root, 'src')).filter((f) => !f.startsWith(tasksDir));
    expect(outside.flatMap(nameLiterals)).toEqual([]);
  });

  it('the scan finds the names where they belong (the task modules)', () => {
    expect(nameLiterals(join(tasksDir, 'wait.ts'))).toContainEqual(expect.stringMatching(/wait\.ts:\d+ 'WAIT'$/));
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../support/temp-dirs';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build script is plain CommonJS, run by node as it is
const { inputFiles, inputsDigest, buildDue } = require('../../../scripts/build/build-ui.js') as {
  inputFiles(base?: string): string[];
  inputsDigest(base?: string): string;
  buildDue(recorded: string | undefined, current: string, indexExists: boolean): boolean;
};

describe('npm start rebuilds the console only when its inputs changed', () => {
  const tree = (): string => {
    const dir = tempDir('build-ui-');
    fs.mkdirSync(path.join(dir, 'ui', 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src', 'model'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'ui', 'src', 'main.tsx'), 'export {}');
    fs.writeFileSync(path.join(dir, 'src', 'model', 'x.ts'), 'export const x = 1;');
    fs.writeFileSync(path.join(dir, 'package-lock.json'), '{}');
    return dir;
  };

  test('the inputs are the console, the server sources it imports and the lock file', () => {
    expect(inputFiles(tree())).toEqual(['package-lock.json', 'src/model/x.ts', 'ui/src/main.tsx']);
  });

  test('the digest changes with a content, a new file or a rename, and only then', () => {
    const dir = tree();
    const first = inputsDigest(dir);
    expect(inputsDigest(dir)).toBe(first);
    fs.writeFileSync(path.join(dir, 'src', 'model', 'x.ts'), 'export const x = 2;');
    const edited = inputsDigest(dir);
    expect(edited).not.toBe(first);
    fs.renameSync(path.join(dir, 'src', 'model', 'x.ts'), path.join(dir, 'src', 'model', 'y.ts'));
    expect(inputsDigest(dir)).not.toBe(edited);
  });

  test('a build is due without a built console, without a digest, or with another one', () => {
    expect(buildDue('abc\n', 'abc', true)).toBe(false);
    expect(buildDue('abc\n', 'abc', false)).toBe(true);
    expect(buildDue(undefined, 'abc', true)).toBe(true);
    expect(buildDue('abd', 'abc', true)).toBe(true);
  });
});

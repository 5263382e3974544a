/**
 * The repository's Dockerfile against a real builder (buildah, scripts/services/buildah.sh): every
 * COPY from the build context, replayed on an empty image with the repository as the context, so
 * buildah applies .dockerignore exactly as it does for `buildah bud .` (and docker for `docker build .`).
 * A file the Dockerfile copies but .dockerignore drops fails here in seconds, not after the build
 * stage has installed its packages.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { engineSuite } from '../support/real-engines';
import { contextCopies } from '../support/dockerfile';

const root = path.resolve(__dirname, '../..');
const buildah = process.env.BATON_BUILDAH_BIN;
const missing = (): string | undefined => (buildah && existsSync(buildah) ? undefined : 'BATON_BUILDAH_BIN is unset or names no file');

engineSuite('buildah', missing())('the Dockerfile build context', () => {
  const tag = `localhost/baton-context-check-${process.pid}`;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'baton-context-'));
  });
  afterAll(() => {
    spawnSync(buildah!, ['rmi', '-f', tag], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds every file the Dockerfile copies from it', () => {
    const copies = contextCopies(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
    expect(copies.filter((c) => !c.startsWith('WORKDIR')).length).toBeGreaterThanOrEqual(5);
    const file = path.join(dir, 'Dockerfile.context');
    writeFileSync(file, ['FROM scratch', ...copies, ''].join('\n'));
    const r = spawnSync(buildah!, ['bud', '--network', 'none', '--layers=false', '-q', '-f', file, '-t', tag, root], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect({ status: r.status, error: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, error: '' });
    // What the build stage reads is in the image, at the paths the COPY lines name.
    const from = spawnSync(buildah!, ['from', '-q', tag], { encoding: 'utf8' });
    const container = from.stdout.trim();
    try {
      const mount = spawnSync(buildah!, ['mount', container], { encoding: 'utf8' }).stdout.trim();
      const present = ['package-lock.json', '.npmrc', 'tsconfig.build.json', 'src/main.ts', 'ui', 'scripts/build/build-ui.js', 'migrations'].filter((f) =>
        existsSync(path.join(mount, 'app', f)),
      );
      expect(present).toEqual(['package-lock.json', '.npmrc', 'tsconfig.build.json', 'src/main.ts', 'ui', 'scripts/build/build-ui.js', 'migrations']);
    } finally {
      spawnSync(buildah!, ['rm', container], { encoding: 'utf8' });
    }
  });
});

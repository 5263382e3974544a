import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Temporary directories of a test file: each is removed when the file ends (test-environment.ts), after
// its last hook and whether or not its tests passed, so a restart on the same directory still finds it.

/** The test environment's list of this file's directories, on the file's global. */
export const TEMP_DIRS_GLOBAL = '__batonTempDirs';

/** A new directory under the OS temp dir, removed when the test file ends (or by `removeDirs`). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const owned = (globalThis as Record<string, unknown>)[TEMP_DIRS_GLOBAL];
  if (Array.isArray(owned)) owned.push(dir);
  return dir;
}

/** Removes each directory (and empties the list); a directory already gone is fine. */
export function removeDirs(dirs: string[]): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

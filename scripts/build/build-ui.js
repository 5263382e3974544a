#!/usr/bin/env node
// Builds the console into dist/ui (typecheck, then vite) and records a digest of its inputs there;
// with --if-changed it skips the build when the recorded digest matches, so `npm start` serves at
// once when nothing the console is built from has changed.
'use strict';
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const STAMP = path.join(root, 'dist', 'ui', '.inputs-sha256');
// The console imports model code from src/, and its dependencies are pinned by the lock file.
const INPUT_DIRS = ['ui', 'src'];
const INPUT_FILES = ['package-lock.json', 'tsconfig.json'];

/** Every input file, relative to the root, sorted. */
function inputFiles(base = root) {
  const out = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(base, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  for (const dir of INPUT_DIRS) if (fs.existsSync(path.join(base, dir))) walk(dir);
  for (const file of INPUT_FILES) if (fs.existsSync(path.join(base, file))) out.push(file);
  return out.sort();
}

/** One digest of the inputs' names and contents. */
function inputsDigest(base = root) {
  const hash = createHash('sha256');
  for (const file of inputFiles(base)) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(base, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Whether a build is due: no built console, no digest, or a different one. */
function buildDue(recorded, current, indexExists) {
  return !indexExists || recorded === undefined || recorded.trim() !== current;
}

function run(bin, args) {
  const r = spawnSync(path.join(root, 'node_modules', '.bin', bin), args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function main() {
  const digest = inputsDigest();
  if (process.argv.includes('--if-changed')) {
    const recorded = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8') : undefined;
    if (!buildDue(recorded, digest, fs.existsSync(path.join(root, 'dist', 'ui', 'index.html')))) return;
  }
  run('tsc', ['-p', 'ui/tsconfig.json']);
  run('vite', ['build', '--config', 'ui/vite.config.mts', '--logLevel', 'warn']);
  fs.writeFileSync(STAMP, `${digest}\n`);
}

if (require.main === module) main();
module.exports = { inputFiles, inputsDigest, buildDue };

// How long the console's executions page takes to load its data with many executions stored:
// seeds N executions into an embedded Baton (fresh data directory), then times the requests the
// page makes (one page of results and six count-only searches, one per status) for the first page,
// a deep page, a name filter and free text. Run after `npm run build`:
//   node scripts/ui/search-timing.mjs [N=100000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { loadConfig } = require('../../dist/config.js');
const { createServer } = require('../../dist/server.js');
const pino = require('pino');

const N = Number(process.argv[2] ?? 100_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-timing-'));
const server = await createServer(loadConfig({ PORT: '0', BATON_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
const base = `http://127.0.0.1:${server.port}`;
const post = (p, body) =>
  fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text());
const get = (p) => fetch(base + p).then((r) => r.json());

try {
  // Three kinds, most completed at once (as history piles up), some left running.
  for (const [name, type] of [
    ['timing_done', 'SET_VARIABLE'],
    ['timing_other', 'SET_VARIABLE'],
    ['timing_waiting', 'WAIT'],
  ])
    await post('/api/metadata/workflowdef', {
      name,
      version: 1,
      schemaVersion: 2,
      tasks: [{ name: 't', taskReferenceName: 't', type, inputParameters: { v: 1 } }],
    });
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < N; i = next++) {
      const name = i % 10 === 0 ? 'timing_waiting' : i % 3 === 0 ? 'timing_other' : 'timing_done';
      await post('/api/workflow', { name, input: { i }, correlationId: `c-${i}` });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  for (;;) {
    const { totalHits } = await get('/api/workflow/search?size=0');
    if (totalHits >= N) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`seeded ${N} executions in ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const STATUSES = ['RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED'];
  const page = async (where, freeText, start) => {
    const q = (query, size, s = 0) =>
      `/api/workflow/search?start=${s}&size=${size}&sort=startTime:DESC&freeText=${encodeURIComponent(freeText)}&query=${encodeURIComponent(query)}`;
    const t = performance.now();
    const [results] = await Promise.all([get(q(where, 25, start)), ...STATUSES.map((s) => get(q(where ? `${where} AND status = ${s}` : `status = ${s}`, 0)))]);
    return { ms: performance.now() - t, totalHits: results.totalHits };
  };
  const cases = [
    ['first page, no filter', '', '*', 0],
    ['page 2000 (start 50,000)', '', '*', 50_000],
    ["workflowType = 'timing_waiting'", "workflowType = 'timing_waiting'", '*', 0],
    ['free text c-4242', '', 'c-4242', 0],
  ];
  for (const [label, where, text, start] of cases) {
    const runs = [];
    let hits = 0;
    for (let i = 0; i < 5; i++) {
      const r = await page(where, text, start);
      runs.push(r.ms);
      hits = r.totalHits;
    }
    runs.sort((a, b) => a - b);
    console.log(`${label}: median ${runs[2].toFixed(0)} ms, max ${runs[4].toFixed(0)} ms (7 requests, ${hits} hits)`);
  }
} finally {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
// The numbers are out; do not wait on whatever the stopped server's pools leave behind.
process.exit(0);

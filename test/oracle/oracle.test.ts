import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBaton, type TestBaton } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { OracleClient } from './client';
import { conductorMissing, startConductor, type RunningConductor } from './conductor-server';
import { unexplained } from './differences';
import { diff } from './normalise';
import { makeCtx, SCENARIOS } from './scenarios';

// The differential suite: every scenario runs against Conductor OSS's own server (the boot jar of
// `npm run services`, default SQLite configuration) and against a real embedded Baton through the
// same client code; their normalised observations must be equal, except for the differences listed
// (with reasons) in ./differences.ts. Conductor boots once for the whole file.

const suite = engineSuite('conductor', conductorMissing());

suite('differential: Baton against Conductor OSS', () => {
  let conductor: RunningConductor;
  let baton: TestBaton;
  let http: Server;
  let httpUrl: string;
  const run = Date.now().toString(36);

  beforeAll(async () => {
    // An endpoint of the suite's own for HTTP tasks, reachable by both servers on 127.0.0.1.
    http = createServer((req, res) => {
      const fail = req.url?.startsWith('/fail');
      res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(fail ? { error: 'nope' } : { hello: 'world', n: 1, path: req.url }));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    [conductor, baton] = await Promise.all([startConductor(), startBaton()]);
    console.log(`[oracle] Conductor healthy after ${(conductor.bootMs / 1000).toFixed(1)} s`);
  }, 900_000);

  afterAll(async () => {
    await Promise.all([conductor?.stop(), baton?.stop(), new Promise((r) => http?.close(r))]);
  });

  test('at least 40 scenarios', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(40);
  });

  SCENARIOS.forEach((scenario, i) => {
    test(
      scenario.name,
      async () => {
        const ns = `or${i}_${run}`;
        const [onConductor, onBaton] = await Promise.all([
          scenario.run(makeCtx(new OracleClient(conductor.url, 'conductor'), ns, httpUrl)),
          scenario.run(makeCtx(new OracleClient(baton.url, 'baton'), ns, httpUrl)),
        ]);
        const left = unexplained(scenario.name, diff(onConductor, onBaton));
        if (left.length) console.log(`[oracle] ${scenario.name}: ${JSON.stringify(left, null, 1)}`);
        expect(left).toEqual([]);
      },
      300_000,
    );
  });
});

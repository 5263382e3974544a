import { CpuProfile, hotFunctions, hotModules } from '../../../bench/stats/cpu-profile';

describe('hotFunctions', () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 } },
      { id: 2, callFrame: { functionName: 'decide', url: 'file:///repo/dist/engine/decider.js', lineNumber: 9 } },
      { id: 3, callFrame: { functionName: '', url: 'file:///repo/node_modules/express/lib/router.js', lineNumber: 0 } },
      { id: 4, callFrame: { functionName: 'decide', url: 'file:///repo/dist/engine/decider.js', lineNumber: 9 } },
      { id: 5, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    ],
    samples: [2, 3, 4, 5, 2, 1],
    timeDeltas: [1000, 500, 1000, 2000, 1000, 0],
  };

  it('adds up self time per function across call sites and sorts it', () => {
    expect(hotFunctions(profile, '/repo')).toEqual([
      { name: 'decide', where: 'dist/engine/decider.js:10', selfMs: 3, selfPercent: 54.5 },
      { name: '(garbage collector)', where: '', selfMs: 2, selfPercent: 36.4 },
      { name: '(anonymous)', where: 'node_modules/express/lib/router.js:1', selfMs: 0.5, selfPercent: 9.1 },
    ]);
  });

  it('keeps only the top entries', () => {
    expect(hotFunctions(profile, '/repo', 1).map((h) => h.name)).toEqual(['decide']);
  });
});

describe('hotModules', () => {
  const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url, lineNumber: 0 }, children });
  const profile: CpuProfile = {
    nodes: [
      frame(1, '(idle)', ''),
      frame(2, 'writev', ''),
      frame(8, 'write', 'file:///repo/node_modules/ioredis/built/Redis.js', [9]),
      frame(9, 'writeGeneric', 'node:internal/stream_base_commons', [10]),
      frame(10, 'writeUtf8String', ''),
      frame(3, 'encode', 'file:///repo/node_modules/cassandra-driver/lib/encoder.js'),
      frame(4, 'send', 'file:///repo/node_modules/cassandra-driver/lib/connection.js'),
      frame(5, 'commit', 'file:///repo/dist/store/cassandra/execution-store.js'),
      frame(6, 'end', 'node:_http_outgoing'),
      frame(7, 'x', 'file:///repo/node_modules/@dapr/dapr/index.js'),
    ],
    samples: [1, 2, 3, 4, 5, 6, 7, 10, 9],
    timeDeltas: [4000, 1000, 1000, 1000, 1000, 1000, 1000, 1500, 500],
  };

  it('adds self time up per package and dist/ directory, native and node core time charged to the calling package', () => {
    expect(hotModules(profile, '/repo').map((m) => [m.module, m.selfMs, m.selfPercent])).toEqual([
      ['(idle)', 4, 33.3],
      ['cassandra-driver', 2, 16.7],
      ['ioredis', 2, 16.7],
      // no caller outside node in the profile: left where it ran
      ['native (socket writes, buffers, crypto)', 1, 8.3],
      ['dist/store/cassandra', 1, 8.3],
      ['node core', 1, 8.3],
      ['@dapr/dapr', 1, 8.3],
    ]);
  });
});

import { CpuProfile, hotFunctions } from '../../../bench/stats/cpu-profile';

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

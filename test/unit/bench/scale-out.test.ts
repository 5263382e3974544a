import { judgeScaleOut, scaleOutPoints, type ScaleOutWindow } from '../../../bench/report/scale-out';

const window = (replicas: number, tasksPerSecond: number, groups: Record<string, number>, load = 0.2): ScaleOutWindow => ({
  replicas,
  tasksPerSecond,
  cpuCoresByGroup: groups,
  loadProcessCpuCores: load,
  errors: 0,
});

describe('the scale-out phase judged', () => {
  it('gives tasks per replica CPU-second and the speed-up over one replica for each count', () => {
    const points = scaleOutPoints([window(1, 100, { batonReplicas: 0.5 }), window(2, 190, { batonReplicas: 1 })]);
    expect(points.map((p) => [p.replicas, p.tasksPerReplicaCpuSecond, p.replicaCpuMsPerTask, p.speedup])).toEqual([
      [1, 200, 5, 1],
      [2, 190, 5.26, 1.9],
    ]);
  });

  it('says where an added replica stops paying and that the cores were all busy then, largest first', () => {
    const points = scaleOutPoints([
      window(1, 60, { batonReplicas: 0.4, daprdPlacementSchedulerRedis: 0.1, cassandra: 0.5, elasticsearch: 0.2 }),
      window(2, 100, { batonReplicas: 0.6, daprdPlacementSchedulerRedis: 0.2, cassandra: 0.7, elasticsearch: 0.3 }),
      window(3, 110, { batonReplicas: 0.8, daprdPlacementSchedulerRedis: 0.25, cassandra: 0.6, elasticsearch: 0.2 }, 0.15),
    ]);
    const v = judgeScaleOut(points, 2);
    expect(v).toMatchObject({ scalesTo: 2, stopsAt: 3 });
    expect(v?.reason).toBe(
      "stops at 3 replicas (×1.83 of one; the added replica brought less than half its share): the machine's 2 cores are busy (2 cores measured: replicas 0.80, Cassandra 0.60, daprd+placement+scheduler+Redis 0.25, Elasticsearch 0.20, load process 0.15); tasks per replica CPU-second 150 → 167 → 138 over 1/2/3 replicas",
    );
  });

  it('counts what else kept the machine busy when /proc/stat was read', () => {
    const points = scaleOutPoints([
      window(1, 90, { batonReplicas: 0.35, cassandra: 0.4 }),
      { ...window(2, 40, { batonReplicas: 0.26, cassandra: 0.5 }), machineBusyCores: 1.96 },
    ]);
    expect(judgeScaleOut(points, 2)?.reason).toMatch(
      /^stops at 2 replicas \(×0\.44 of one; .*\): the machine's 2 cores are busy \(1\.96 busy: 0\.96 cores measured: Cassandra 0\.50, replicas 0\.26, load process 0\.20; other processes on the machine 1\)/,
    );
  });

  it('says it scales, and how busy the machine was, when every added replica paid', () => {
    const v = judgeScaleOut(
      scaleOutPoints([window(1, 50, { batonReplicas: 0.25 }), window(2, 95, { batonReplicas: 0.5 }), window(3, 130, { batonReplicas: 0.7 })]),
      4,
    );
    expect(v).toMatchObject({ scalesTo: 3, stopsAt: null });
    expect(v?.reason).toMatch(/^scales to 3 replicas \(×2\.6 of one\): 0\.9 of the machine's 4 cores busy \(replicas 0\.70, load process 0\.20\)/);
    expect(judgeScaleOut([], 2)).toBeNull();
  });
});

import { spawn } from 'node:child_process';
import { processTree } from '../../../bench/processes/proc-sampler';

describe('processTree', () => {
  it('finds the children and grandchildren of a process, as PostgreSQL forks a backend per connection', async () => {
    // sh starts a subshell that starts sleep: a child and a grandchild whose CPU the parent's /proc stat leaves out
    const root = spawn('sh', ['-c', '(sleep 30; true) & sleep 30; true'], { stdio: 'ignore' });
    let tree: number[] = [];
    try {
      const pid = root.pid as number;
      for (let i = 0; i < 50 && tree.length < 4; i++) {
        await new Promise((r) => setTimeout(r, 20));
        tree = processTree(pid);
      }
      expect(tree[0]).toBe(pid);
      // sh, the subshell, and a sleep under each
      expect(tree).toHaveLength(4);
      expect(new Set(tree).size).toBe(4);
    } finally {
      for (const p of tree.length ? tree.reverse() : [root.pid as number]) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
  });

  it('is the pid alone for a process that is gone', () => {
    expect(processTree(2 ** 22 + 12345)).toEqual([2 ** 22 + 12345]);
  });
});

/** Entry of the load process (forked by the bench): runs one scenario per request and answers over IPC. */
import type { LoadMessage, LoadRequest } from './protocol';
import { runBullmq } from './scenario-bullmq';
import { runCeiling } from './scenario-ceiling';
import { runDaprWorkflow } from './scenario-dapr-workflow';
import { runClosedLoop } from './scenario-closed-loop';
import { runInFlight } from './scenario-in-flight';
import type { Emit } from './scenario-kit';
import { runOpenLoop } from './scenario-open-loop';
import { runRestate } from './scenario-restate';

if (!process.send) throw new Error('load-process must be started with child_process.fork');

const send = (m: LoadMessage): void => {
  process.send?.(m);
};
const emit: Emit = (name, data = {}) => send({ type: 'event', name, data });

async function run(req: LoadRequest): Promise<unknown> {
  const c = req.command;
  switch (c.kind) {
    case 'ceiling':
      return runCeiling(c.baseUrl, c.inFlight, c.timing, emit);
    case 'bullmq':
      return runBullmq(c.redisPort, c.concurrency, c.inFlightChains, c.timing, emit);
    case 'closed-loop':
      return runClosedLoop(c, emit);
    case 'open-loop':
      return runOpenLoop(c, emit);
    case 'in-flight':
      return runInFlight(c, emit);
    case 'dapr-workflow':
      return runDaprWorkflow(c, emit);
    case 'restate':
      return runRestate(c, emit);
  }
}

process.on('message', (req: LoadRequest) => {
  if (req.type !== 'run') return;
  run(req).then(
    (result) => send({ type: 'result', id: req.id, ok: true, result }),
    (e: unknown) => send({ type: 'result', id: req.id, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
});
// the orchestrator going away ends the load, whatever is running
process.on('disconnect', () => process.exit(0));

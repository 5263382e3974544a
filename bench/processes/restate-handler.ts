/**
 * The Restate peer's service process (started by the bench): the same 3-step chain as the bench's
 * 3-task SIMPLE workflow, as one durable handler whose steps are journaled `ctx.run` actions, each
 * reading its predecessor's output. Serves HTTP/2 on 127.0.0.1:<argv[2]> for restate-server to call.
 */
import { createServer } from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { RESTATE_HANDLER, RESTATE_SERVICE } from './restate-names';

// the SDK calls Promise.withResolvers (Node 22+); Node 20, which Baton supports, lacks it
const P = Promise as unknown as { withResolvers?: () => { promise: Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void } };
P.withResolvers ??= () => {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

const step = (by: string, v: unknown): { v: unknown; by: string } => ({ v, by });

const chain = restate.service({
  name: RESTATE_SERVICE,
  handlers: {
    [RESTATE_HANDLER]: async (ctx: restate.Context, input: { n: number }): Promise<{ result: unknown }> => {
      const a = await ctx.run('benchStepA', () => step('benchStepA', input?.n ?? null));
      const b = await ctx.run('benchStepB', () => step('benchStepB', a.v));
      const c = await ctx.run('benchStepC', () => step('benchStepC', b.v));
      return { result: c.v };
    },
  },
});

if (require.main === module) {
  const port = Number(process.argv[2]);
  if (!Number.isInteger(port) || port <= 0) throw new Error('usage: restate-handler <port>');
  const server = createServer(restate.endpoint().bind(chain).http2Handler());
  server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowDefSchema } from '../../../src/model/definitions';
import type { StartWorkflowRequest } from '../../../src/model/requests';
import { OutcomeUnknown, type ActorHost } from '../../../src/runtime/ports';
import type { MetadataService } from '../../../src/services/metadata-service';
import { WorkflowService } from '../../../src/services/workflow-service';
import type { ExecutionStore } from '../../../src/store/ports';
import { openSqliteStores, type SqliteStores } from '../../../src/store/sqlite';

// A start whose actor call timed out after it was sent: its turn may still commit. A client repeating it
// with the same idempotency key must not get a second execution, whichever the strategy.

let dir: string;
let stores: SqliteStores;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-idem-unknown-'));
  stores = openSqliteStores(dir);
});
afterEach(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

const def = WorkflowDefSchema.parse({ name: 'pay', version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] });

/**
 * A host whose first start, and its one re-send, are answered with an unknown outcome (the start stays unsettled);
 * its turn commits only when the test says so. `sent` holds each distinct id sent.
 */
function world() {
  const committed = new Set<string>();
  const sent: string[] = [];
  let lostAnswers = 2;
  const host = {
    invoke: async (type: string, id: string, method: string) => {
      if (!sent.includes(id)) sent.push(id);
      if (lostAnswers-- > 0) throw new OutcomeUnknown({ type, id, method }, 'TimeoutError');
      committed.add(id);
      return id;
    },
  } as unknown as ActorHost;
  const store = {
    load: async (id: string) => (committed.has(id) ? { workflow: { workflowId: id, status: 'RUNNING' }, tasks: [], rev: 1, outbox: [] } : undefined),
  } as unknown as ExecutionStore;
  const metadata = { limits: { maxBytes: 1 << 20, maxCount: 100 } } as unknown as MetadataService;
  return {
    service: new WorkflowService(host, store, metadata, stores.idempotencyKeys, undefined, undefined, 200, undefined, undefined, {
      resends: 1,
      delayMs: 0,
    }),
    committed,
    sent,
  };
}

const request = (strategy: StartWorkflowRequest['idempotencyStrategy']): StartWorkflowRequest => ({
  name: 'pay',
  workflowDef: def,
  input: {},
  idempotencyKey: 'order-7',
  idempotencyStrategy: strategy,
});

test('RETURN_EXISTING: the repeated start answers the first execution, which its late turn committed', async () => {
  const { service, committed, sent } = world();
  await expect(service.start(request('RETURN_EXISTING'))).rejects.toBeInstanceOf(OutcomeUnknown);
  const first = sent[0]!;
  committed.add(first); // the turn ran after all
  expect(await service.start(request('RETURN_EXISTING'))).toBe(first);
  expect(sent).toEqual([first]);
});

test('RETURN_EXISTING while the first turn has not committed within the wait: a retryable 503, no second start; the id once it commits', async () => {
  const { service, committed, sent } = world();
  await expect(service.start(request('RETURN_EXISTING'))).rejects.toBeInstanceOf(OutcomeUnknown);
  // Answering the claimed id here would hand out an id that never exists if that turn died with its replica.
  await expect(service.start(request('RETURN_EXISTING'))).rejects.toMatchObject({ status: 503, retryable: true, code: 'IDEMPOTENT_START_IN_FLIGHT' });
  expect(sent).toHaveLength(1);
  committed.add(sent[0]!);
  expect(await service.start(request('RETURN_EXISTING'))).toBe(sent[0]);
  expect(sent).toHaveLength(1);
});

test('RETURN_EXISTING while the first turn commits during the wait: its id', async () => {
  const { service, committed, sent } = world();
  await expect(service.start(request('RETURN_EXISTING'))).rejects.toBeInstanceOf(OutcomeUnknown);
  setTimeout(() => committed.add(sent[0]!), 60);
  expect(await service.start(request('RETURN_EXISTING'))).toBe(sent[0]);
  expect(sent).toHaveLength(1);
});

test('FAIL (the default): the repeated start is a 409 naming the key, not a second execution', async () => {
  const { service, committed, sent } = world();
  await expect(service.start(request(undefined))).rejects.toBeInstanceOf(OutcomeUnknown);
  committed.add(sent[0]!);
  await expect(service.start(request(undefined))).rejects.toMatchObject({ status: 409, message: 'Workflow with the idempotency key order-7 already exists' });
  expect(sent).toHaveLength(1);
});

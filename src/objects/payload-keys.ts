import { createHash } from 'node:crypto';
import { objectKeyProblem } from './object-keys';

// Where external payloads live in the object store (docs/object-store.md), pure:
//   payloads/{workflow|task}/{input|output}/{uuid}.json                      a client's upload (a WRITE location)
//   payloads/executions/{workflowId}/workflow-{input|output}-{digest}.json    Baton's, above the threshold
//   payloads/executions/{workflowId}/task-{taskId}-{input|output}-{digest}.json
// Baton's own keys name their execution, so removing it removes them by prefix; the digest names the content,
// so a payload written again unchanged is the same object.

export const PAYLOAD_TYPES = ['WORKFLOW_INPUT', 'WORKFLOW_OUTPUT', 'TASK_INPUT', 'TASK_OUTPUT'] as const;
export type PayloadType = (typeof PAYLOAD_TYPES)[number];
export type PayloadField = 'input' | 'output';

export const PAYLOADS_PREFIX = 'payloads/';

/** The key of a client's upload of one payload type. */
export function uploadKey(type: PayloadType, id: string): string {
  const [entity, field] = type.toLowerCase().split('_') as [string, string];
  return `${PAYLOADS_PREFIX}${entity}/${field}/${id}.json`;
}

/** An id as one key segment: itself when it fits the key rules, else its hash. */
const segmentOf = (id: string): string => (/^[A-Za-z0-9_=-]{1,200}$/.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 32));

/** Every key Baton writes for one execution starts with this. */
export const executionPayloadPrefix = (workflowId: string): string => `${PAYLOADS_PREFIX}executions/${segmentOf(workflowId)}/`;

/** The key of a payload Baton stores outside an execution row. */
export function executionPayloadKey(workflowId: string, owner: { taskId?: string }, field: PayloadField, digest: string): string {
  const name = owner.taskId === undefined ? `workflow-${field}` : `task-${segmentOf(owner.taskId)}-${field}`;
  return `${executionPayloadPrefix(workflowId)}${name}-${digest.slice(0, 32)}.json`;
}

/** Whether a client may name this path (a READ location, a start's or update's external path): a valid key under payloads/. */
export const isPayloadPath = (path: string): boolean => path.startsWith(PAYLOADS_PREFIX) && objectKeyProblem(path) === undefined;

/** The content digest of a payload's JSON text. */
export const payloadDigest = (json: string): string => createHash('sha256').update(json).digest('hex');

import { createHash } from 'node:crypto';
import type { QueueKey } from '../model/effects';
import { queueName } from '../model/effects';

// QueueActor ids travel raw in Dapr URL paths and state keys (`<app>||QueueActor||<id>||<key>`), and
// queue names are free text (task type, domain: `#`, `/`, `?`, `|`, spaces, any script). So an id is
// `<encoded name>~<partition>`: `[A-Za-z0-9_-]` kept, every other UTF-8 byte as `.HH` (uppercase hex),
// a lone UTF-16 surrogate (no UTF-8 form) as `.UHHHH`. Only URL-unreserved characters remain, `~`
// cannot occur in an encoded name, and no id is `.` or `..` (which URL handling would collapse).

const PLAIN = /^[A-Za-z0-9_-]*$/;
const hex = (n: number, width: number): string => n.toString(16).toUpperCase().padStart(width, '0');

/** The reversible, URL-safe form of a queue name (without the partition). */
export function encodeQueueName(name: string): string {
  if (PLAIN.test(name)) return name;
  let out = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80 && PLAIN.test(ch)) out += ch;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += `.U${hex(cp, 4)}`;
    else for (const b of Buffer.from(ch, 'utf8')) out += `.${hex(b, 2)}`;
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Inverse of encodeQueueName; throws on text it could not have produced. */
export function decodeQueueName(encoded: string): string {
  if (PLAIN.test(encoded)) return encoded;
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length > 0) out += utf8.decode(Uint8Array.from(bytes));
    bytes = [];
  };
  for (let i = 0; i < encoded.length;) {
    const ch = encoded[i];
    if (ch !== '.') {
      flush();
      out += ch;
      i++;
    } else if (encoded[i + 1] === 'U' && /^[0-9A-F]{4}$/.test(encoded.slice(i + 2, i + 6))) {
      flush();
      out += String.fromCharCode(parseInt(encoded.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (/^[0-9A-F]{2}$/.test(encoded.slice(i + 1, i + 3))) {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      throw new Error(`not an encoded queue name: ${encoded}`);
    }
  }
  try {
    flush();
  } catch {
    throw new Error(`not an encoded queue name: ${encoded}`);
  }
  // One text, one encoding: reject every other spelling (escaped plain characters, joined surrogates...).
  if (encodeQueueName(out) !== encoded) throw new Error(`not an encoded queue name: ${encoded}`);
  return out;
}

/** The QueueActor id of one partition of a queue. */
export function queueActorId(name: string, partition: number): string {
  if (!Number.isSafeInteger(partition) || partition < 0) throw new Error(`bad queue partition ${partition}`);
  return `${encodeQueueName(name)}~${partition}`;
}

/** The queue name of a QueueActor id made by queueActorId; throws on any other text. */
export function queueNameOfActorId(id: string): string {
  const sep = id.lastIndexOf('~');
  if (sep < 0 || !/^(0|[1-9][0-9]*)$/.test(id.slice(sep + 1))) throw new Error(`not a QueueActor id: ${id}`);
  return decodeQueueName(id.slice(0, sep));
}

/** How task queues map to QueueActor ids (queueActorId). */
export class QueuePartitions {
  /** Queue names seen (pushed to) by this process. */
  readonly known = new Set<string>();

  constructor(
    readonly partitions: number,
    /** Told of every queue name the first time this process pushes to it. */
    private readonly onNewQueue: (name: string) => void = () => undefined,
  ) {}

  actorIdFor(q: QueueKey, taskId: string): string {
    const name = queueName(q);
    if (!this.known.has(name)) {
      this.known.add(name);
      this.onNewQueue(name);
    }
    return queueActorId(name, this.partitionOf(taskId));
  }

  partitionOf(taskId: string): number {
    if (this.partitions <= 1) return 0;
    return createHash('md5').update(taskId).digest().readUInt32BE(0) % this.partitions;
  }

  /** Every partition actor id of a queue, starting at a rotating offset so pollers spread out. */
  actorIds(name: string, offset = 0): string[] {
    const ids: string[] = [];
    for (let i = 0; i < this.partitions; i++) ids.push(queueActorId(name, (i + offset) % this.partitions));
    return ids;
  }
}

import { decodeQueueName, encodeQueueName, QueuePartitions, queueActorId, queueNameOfActorId } from '../../../src/services/queues';
import { queueName } from '../../../src/model/effects';

// QueueActor ids go raw into Dapr URL paths and state keys: reversible, injective, URL-unreserved only.

const nasty = [
  '',
  'plain_task-1',
  'a#b',
  'a/b',
  'a?b=c&d',
  '100%',
  '%41',
  'a.b',
  '.',
  '..',
  '.41',
  'a~1',
  '~',
  'x||y',
  'a b\tc\n',
  'emoji 🚀 task',
  '任务:类型',
  'ünïcödé',
  'domain:task',
  ':task',
  'task@ns-group',
  '\u0000nul',
  '\ud800lone high',
  'lone low \udc00',
  '\udc00\ud800',
  '\ud83d\ude80',
  'a'.repeat(300),
];

const UNRESERVED = /^[A-Za-z0-9._~-]*$/;

test('every name round-trips through its actor id, for every partition', () => {
  for (const name of nasty) {
    for (const p of [0, 1, 7, 1234]) {
      const id = queueActorId(name, p);
      expect(queueNameOfActorId(id)).toBe(name);
      expect(id.endsWith(`~${p}`)).toBe(true);
    }
  }
});

test('ids hold only URL-unreserved characters and are never a dot segment', () => {
  for (const name of nasty) {
    const id = queueActorId(name, 0);
    expect(id).toMatch(UNRESERVED);
    expect(encodeURIComponent(id)).toBe(id);
    expect(encodeQueueName(name)).not.toContain('~');
    expect(['.', '..']).not.toContain(id);
  }
});

test('plain names stay readable', () => {
  expect(queueActorId('send_email-v2', 3)).toBe('send_email-v2~3');
  expect(queueActorId('mydomain:send_email', 0)).toBe('mydomain.3Asend_email~0');
  expect(queueActorId('a.b', 0)).toBe('a.2Eb~0');
  expect(queueActorId('é', 0)).toBe('.C3.A9~0');
});

test('near-collisions stay distinct', () => {
  const names = [
    'a#b',
    'a#',
    '#b',
    'a',
    'b',
    'ab',
    'a b',
    'a  b',
    'a.b',
    'a.2Eb',
    'a.23b',
    'a%23b',
    'a~b',
    'a~0',
    'a_b',
    'a-b',
    'd:t',
    'd::t',
    ':d:t',
    'd:t:',
    'dt',
    'd.3At',
    'x||y',
    'x|y',
    'x|',
    '|y',
    '',
    ' ',
    '.',
    '..',
    '~',
    '~0',
    '.U0041',
    'A',
    '\ud800',
    '\udc00',
    '\ud800\udc00',
    '\ud800x',
    'é',
    'e\u0301',
    'ß',
    'ss',
    '🚀',
    '\ud83d',
    '\ude80',
    ...nasty,
  ];
  const unique = [...new Set(names)];
  for (const p of [0, 1]) {
    const ids = new Set(unique.map((n) => queueActorId(n, p)));
    expect(ids.size).toBe(unique.length);
  }
  // Across partitions too: the partition suffix cannot be confused with the name.
  const all = new Set(unique.flatMap((n) => [0, 1, 10, 11].map((p) => queueActorId(n, p))));
  expect(all.size).toBe(unique.length * 4);
});

test('the queue names the engine makes (domain, namespace, isolation group) round-trip', () => {
  const keys = [
    { taskType: 't' },
    { taskType: 'a/b?c#d', domain: 'dom ain' },
    { taskType: 'x', domain: '', executionNameSpace: 'ns#1', isolationGroupId: 'g/2' },
    { taskType: '任务', domain: '🚀' },
  ];
  for (const k of keys) expect(queueNameOfActorId(queueActorId(queueName(k), 0))).toBe(queueName(k));
});

test('text no encoder made is refused', () => {
  for (const bad of [
    'a',
    'a#0',
    'a~',
    'a~01',
    'a~-1',
    'a~1.5',
    'a b~0',
    '.2~0',
    '.zz~0',
    '.2e~0',
    '.41~0',
    '.C3~0',
    '.FF~0',
    '.UD83D.UDE80~0',
    '.U0041~0',
    'é~0',
    'a~0~x',
  ]) {
    expect(() => queueNameOfActorId(bad)).toThrow();
  }
  expect(() => decodeQueueName('.U00')).toThrow();
  expect(() => queueActorId('a', -1)).toThrow();
  expect(() => queueActorId('a', 1.5)).toThrow();
});

test('partitions: a task always maps to the same id; a queue lists all its partition ids, rotated', () => {
  const seen: string[] = [];
  const parts = new QueuePartitions(3, (n) => seen.push(n));
  const q = { taskType: 'a#b', domain: 'd' };
  const id = parts.actorIdFor(q, 'task-1');
  expect(parts.actorIdFor(q, 'task-1')).toBe(id);
  expect(queueNameOfActorId(id)).toBe('d:a#b');
  expect(seen).toEqual(['d:a#b']);
  expect(parts.actorIds('d:a#b', 1)).toEqual(['d.3Aa.23b~1', 'd.3Aa.23b~2', 'd.3Aa.23b~0']);
  expect(parts.actorIds('d:a#b')).toContain(id);
});

test('random strings of awkward code units round-trip and never collide', () => {
  let x = 0x2545f491;
  const rand = (n: number): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const units = [
    'a',
    'Z',
    '0',
    '_',
    '-',
    '.',
    '~',
    '#',
    '/',
    '?',
    '%',
    '|',
    ' ',
    ':',
    '@',
    'é',
    '任',
    '\ud83d',
    '\ude80',
    '\ud800',
    '\udfff',
    '\u0000',
    'U',
    'F',
  ];
  const names = new Set<string>();
  for (let i = 0; i < 3000; i++) names.add(Array.from({ length: rand(8) }, () => units[rand(units.length)]).join(''));
  const ids = new Set<string>();
  for (const name of names) {
    const id = queueActorId(name, 0);
    expect(id).toMatch(UNRESERVED);
    expect(queueNameOfActorId(id)).toBe(name);
    ids.add(id);
  }
  expect(ids.size).toBe(names.size);
});

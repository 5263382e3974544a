import type { EventExecution, EventHandler } from '../../../src/model/events';
import { eventMessages, handlerStatistics, pageOf } from '../../../src/services/event-statistics';

const handler = (name: string, event: string, active = true): EventHandler => ({ name, event, active, actions: [] }) as unknown as EventHandler;
const exec = (name: string, event: string, messageId: string, created: number, action = 'start_workflow'): EventExecution => ({
  id: `${messageId}_${name}_${action}`,
  messageId,
  name,
  event,
  created,
  status: 'COMPLETED',
  action,
  output: {},
});

describe('event handler statistics', () => {
  test('per handler: actions recorded and distinct messages; handlers without any count zero', () => {
    const execs = [exec('h1', 'e', 'm1', 1), exec('h1', 'e', 'm1', 1, 'complete_task'), exec('h1', 'e', 'm2', 2), exec('h2', 'f', 'm3', 3)];
    expect(handlerStatistics([handler('h1', 'e'), handler('h2', 'f', false), handler('h3', 'g')], execs)).toEqual([
      { name: 'h1', event: 'e', active: true, numberOfActions: 3, numberOfMessages: 2 },
      { name: 'h2', event: 'f', active: false, numberOfActions: 1, numberOfMessages: 1 },
      { name: 'h3', event: 'g', active: true, numberOfActions: 0, numberOfMessages: 0 },
    ]);
  });

  test('messages of one event, oldest first, each with the executions of every handler', () => {
    const a = exec('h1', 'e', 'm2', 5);
    const b = exec('h2', 'e', 'm2', 4);
    const c = exec('h1', 'e', 'm1', 7);
    const other = exec('h1', 'x', 'm9', 1);
    const messages = eventMessages('e', [a, b, c, other]);
    expect(messages.map((m) => [m.id, m.createdAt, m.eventExecutions.length])).toEqual([
      ['m2', 4, 2],
      ['m1', 7, 1],
    ]);
    expect(messages[0]).toMatchObject({ eventTarget: 'e', eventType: 'MESSAGE', status: 'HANDLED' });
  });

  test("a message's payload is read from whichever of its records holds it; older records without one leave it out", () => {
    const payload = { event: 'e', source: 'test' };
    const messages = eventMessages('e', [exec('h1', 'e', 'm1', 1), { ...exec('h2', 'e', 'm1', 2), payload }, exec('h1', 'e', 'm2', 3)]);
    expect(messages[0]).toMatchObject({ id: 'm1', fullPayload: payload, payload: JSON.stringify(payload) });
    expect(messages[1]).not.toHaveProperty('fullPayload');
    expect(messages[1]).not.toHaveProperty('payload');
  });

  test('pages skip `from` and keep at most `size`', () => {
    expect(pageOf([1, 2, 3, 4, 5], 1, 2)).toEqual([2, 3]);
    expect(pageOf([1, 2], 5, 2)).toEqual([]);
  });
});

import type { EventExecution, EventHandler } from '../model/events';

// What event handlers did, summed up as Orkes' EventClient reads it (pure): per handler, the
// messages it handled and the actions it ran; per event, the messages with their executions.

export interface HandledEventResponse {
  name: string;
  event: string;
  active: boolean;
  /** Action executions recorded (one per action per message). */
  numberOfActions: number;
  /** Distinct messages the handler acted on. */
  numberOfMessages: number;
}

export interface EventMessageView {
  id: string;
  eventTarget: string;
  eventType: 'MESSAGE';
  createdAt: number;
  status: 'HANDLED';
  /** The message as received: `payload` its JSON text, `fullPayload` the object (Orkes' EventMessage). */
  payload?: string;
  fullPayload?: Record<string, unknown>;
  eventExecutions: EventExecution[];
}

/** One row per handler (in handler order), counting its recorded executions. */
export function handlerStatistics(handlers: readonly EventHandler[], executions: readonly EventExecution[]): HandledEventResponse[] {
  const actions = new Map<string, number>();
  const messages = new Map<string, Set<string>>();
  for (const e of executions) {
    actions.set(e.name, (actions.get(e.name) ?? 0) + 1);
    let ids = messages.get(e.name);
    if (!ids) messages.set(e.name, (ids = new Set()));
    ids.add(e.messageId);
  }
  return handlers.map((h) => ({
    name: h.name,
    event: h.event,
    active: h.active,
    numberOfActions: actions.get(h.name) ?? 0,
    numberOfMessages: messages.get(h.name)?.size ?? 0,
  }));
}

/** The messages of `event` that handlers acted on, oldest first, each with its executions. */
export function eventMessages(event: string, executions: readonly EventExecution[]): EventMessageView[] {
  const byMessage = new Map<string, EventMessageView>();
  for (const e of executions) {
    if (e.event !== event) continue;
    const m = byMessage.get(e.messageId);
    const view: EventMessageView = m ?? {
      id: e.messageId,
      eventTarget: event,
      eventType: 'MESSAGE',
      createdAt: e.created,
      status: 'HANDLED',
      eventExecutions: [],
    };
    if (!m) byMessage.set(e.messageId, view);
    view.eventExecutions.push(e);
    view.createdAt = Math.min(view.createdAt, e.created);
    if (e.payload && !view.fullPayload) {
      view.fullPayload = e.payload;
      view.payload = JSON.stringify(e.payload);
    }
  }
  return [...byMessage.values()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
}

/** One page of a list: `from` items skipped, at most `size` kept. */
export const pageOf = <T>(items: readonly T[], from: number, size: number): T[] => items.slice(from, from + size);

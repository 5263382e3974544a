import express, { type RequestHandler } from 'express';

// Conductor binds the log endpoint's body to a String (`@RequestBody String log`), so whatever the
// client sends is the line: the Python SDK posts it bare with `Content-Type: application/json`,
// which no JSON parser takes. This route reads its body as text before the JSON parser runs.

/** The POST route this parser serves (express path syntax). */
export const TASK_LOG_PATH = '/api/tasks/:taskId/log';

/** Reads the body of a log post as text, whatever its content type; other methods pass through. */
export function taskLogBodyParser(limit: number | string): RequestHandler {
  const text = express.text({ limit, type: () => true });
  return (req, res, next) => (req.method === 'POST' ? text(req, res, next) : next());
}

/**
 * The log line a body stands for. A JSON string literal (the JS SDK's `"line"`) is unwrapped, as
 * Baton always did for it; any other text, JSON or not, is the line as sent. Undefined when there
 * is no body (Conductor's required body: a 400).
 */
export function taskLogLine(body: unknown): string | undefined {
  if (typeof body !== 'string' || body === '') return undefined;
  const t = body.trim();
  if (t.startsWith('"') && t.endsWith('"') && t.length >= 2) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not a JSON string literal: the text as sent
    }
  }
  return body;
}

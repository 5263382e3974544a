import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { clientOf } from './client-identity';
import { toErrorBody } from './errors';
import { Errors } from '../model/named-errors';
import { checkJsonDepth } from './json-depth';
import { sendJson, sendText, type WithQuery } from './params';
import { WORKER_BODIES, type WorkerCalls } from './worker-calls';
import { readJsonBody } from './request-body';
import { grantCheckOf } from '../auth/request-gate';
import { setRouteLabel } from './route-label';
import type { RequestTarget } from './request-target';
import type { RouteMatch } from './route-matcher';
import type { HotCall, Route } from './route-table';

// Served on node:http ahead of express: express's routing and body parsing cost ~15% of Baton's CPU
// per task in the bench profile. The routes are those the route table marks `hot`, found by the
// table's matcher. Only the plain form of each call is taken here (JSON body in UTF-8, no content
// encoding); anything else, and every other route, goes to express, which answers the same calls
// through the same functions.

/** A hot call with what it reads from the path; `template` is the route as the table spells it (metric label and span name). */
type HotRoute = { call: 'pollBatch'; taskType: string; template: string } | { call: Exclude<HotCall, 'pollBatch'>; template: string };

/** The hot call of the route the front matched, if the table marks it hot and the method is its own (not HEAD). */
function hotRouteOf(method: string | undefined, found: RouteMatch<Route> | undefined): HotRoute | undefined {
  const call = found?.route.hot;
  if (!call || method !== found.route.method.toUpperCase()) return undefined;
  const template = found.route.path;
  if (call !== 'pollBatch') return { call, template };
  try {
    return { call, taskType: decodeURIComponent(found.params.taskType!), template };
  } catch {
    return undefined; // malformed escapes: express answers those
  }
}

/** A JSON body this path can read as it comes: declared length or chunked, plain UTF-8 JSON. */
function plainJsonBody(req: IncomingMessage): boolean {
  const h = req.headers;
  if (h['transfer-encoding'] === undefined && h['content-length'] === undefined) return false;
  const enc = h['content-encoding'];
  if (enc !== undefined && enc.toLowerCase() !== 'identity') return false;
  const type = h['content-type'];
  if (!type) return false;
  const semi = type.indexOf(';');
  if ((semi < 0 ? type : type.slice(0, semi)).trim().toLowerCase() !== 'application/json') return false;
  if (semi < 0) return true;
  const params = type
    .slice(semi + 1)
    .trim()
    .toLowerCase();
  return params === '' || params === 'charset=utf-8' || params === 'charset="utf-8"';
}

function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      req.resume();
      return reject(Errors.BODY_TOO_LARGE());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        chunks.length = 0;
        return;
      }
      chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > limit) return reject(Errors.BODY_TOO_LARGE());
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (text.length === 0) return resolve({}); // as express.json: an empty body is an empty object
      try {
        resolve(JSON.parse(text));
      } catch (e) {
        reject(Errors.BODY_MALFORMED_JSON((e as Error).message));
      }
    });
  });
}

function queryOf(search: string): WithQuery {
  // Null prototype: a parameter named __proto__ or constructor is a parameter, as express's parser keeps it.
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(search)) {
    const seen = query[k];
    query[k] = seen === undefined ? v : Array.isArray(seen) ? [...seen, v] : [seen, v];
  }
  return { query };
}

function sendError(res: ServerResponse, err: unknown, log: Logger, req: IncomingMessage): void {
  const body = toErrorBody(err);
  if (body.status >= 500) log.error({ err, path: req.url, method: req.method }, 'request failed');
  if (res.headersSent) return void res.destroy();
  const text = JSON.stringify(body);
  res.statusCode = body.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Returns a handler that answers the hot calls and reports false for every other request; it reads the canonical target (request-target.ts) and the route the front matched in the table, as the gate did. */
export function hotPath(
  calls: WorkerCalls,
  opts: { maxBodyBytes: number; maxJsonDepth: number; log: Logger },
): (req: IncomingMessage, res: ServerResponse, target: RequestTarget, found: RouteMatch<Route> | undefined) => boolean {
  const serve = async (route: HotRoute, req: IncomingMessage, res: ServerResponse, search: string): Promise<void> => {
    if (route.call === 'pollBatch') {
      const ac = new AbortController();
      req.on('close', () => ac.abort());
      return sendJson(res, await calls.pollBatch(route.taskType, queryOf(search), ac.signal, clientOf(req)));
    }
    const raw = await readJson(req, opts.maxBodyBytes);
    checkJsonDepth(raw, opts.maxJsonDepth);
    if (route.call === 'update') return sendText(res, await calls.update(readJsonBody(WORKER_BODIES.update, raw)));
    if (route.call === 'start') return sendText(res, await calls.start(readJsonBody(WORKER_BODIES.start, raw), grantCheckOf(req)));
    const next = await calls.updateV2(readJsonBody(WORKER_BODIES.updateV2, raw));
    if (next) return sendJson(res, next);
    res.statusCode = 204;
    res.end();
  };

  return (req, res, target, found) => {
    const route = hotRouteOf(req.method, found);
    if (!route || (route.call !== 'pollBatch' && !plainJsonBody(req))) return false;
    setRouteLabel(req, route.template);
    serve(route, req, res, target.query).catch((e) => sendError(res, e, opts.log, req));
    return true;
  };
}

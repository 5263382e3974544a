import fs from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { Errors } from '../model/named-errors';
import { isConsolePath } from './console-paths';

// Serves the operator console (ui/, built by `npm run build` into dist/ui) at `/`. Hashed assets
// are immutable; index.html is revalidated on every load so a new build shows at once; any other
// GET outside the API answers index.html, as the console routes on the client.

/** Where `npm run build` puts the console, from both dist/api (built) and src/api (ts-jest). */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, '../../dist/ui');

const IMMUTABLE = 'public, max-age=31536000, immutable';
// The console loads only its own scripts; React Flow and CodeMirror set inline styles.
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  // frame-ancestors for browsers that predate it.
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

export function consoleRouter(dir: string = DEFAULT_CONSOLE_DIR): Router {
  const r = express.Router();
  const index = path.join(dir, 'index.html');
  const only =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) =>
      (req.method === 'GET' || req.method === 'HEAD') && isConsolePath(req.path) ? handler(req, res, next) : next();

  // Every console answer carries the headers, index.html served as a file included (it must not be framed).
  r.use(
    only((_req, res, next) => {
      res.set(SECURITY_HEADERS);
      next();
    }),
  );
  r.use(
    only(
      express.static(dir, {
        index: false,
        fallthrough: true,
        redirect: false,
        setHeaders: (res, file) => {
          res.setHeader('Cache-Control', file.startsWith(path.join(dir, 'assets') + path.sep) ? IMMUTABLE : 'no-cache');
        },
      }),
    ),
  );
  r.use(
    only((req, res, next) => {
      // A missing hashed asset is a 404, not the page: a stale page must not run HTML as a script.
      if (req.path.startsWith('/assets/')) return next();
      fs.readFile(index, (err, html) => {
        if (err) return next(Errors.CONSOLE_NOT_BUILT(index));
        res.set({ 'Cache-Control': 'no-cache', 'Content-Type': 'text/html; charset=utf-8' });
        res.send(html);
      });
    }),
  );
  return r;
}

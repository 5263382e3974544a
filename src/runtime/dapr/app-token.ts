import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Rejects app-channel calls whose `dapr-api-token` (daprd sends APP_API_TOKEN there on every call into the app) differs; no-op when unset. */
export const requireDaprAppToken = (token: string | undefined): RequestHandler => {
  const expected = token ? Buffer.from(token) : undefined;
  return (req, res, next) => {
    if (!expected) return next();
    const given = Buffer.from(req.get('dapr-api-token') ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return next();
    res.status(401).json({ error: { name: 'Unauthorized', message: 'missing or wrong dapr-api-token' } });
  };
};

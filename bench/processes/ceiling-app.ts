/** The HTTP ceiling: a trivial express 5 app that parses a small JSON body and answers a small JSON body. */
import express from 'express';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT is required');

const app = express();
app.disable('x-powered-by');
app.use(express.json());
let served = 0;
app.post('/echo', (req, res) => {
  served++;
  res.json({ ok: true, n: served, id: (req.body as { id?: unknown }).id ?? null });
});
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});
const server = app.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));

import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './processes';

/**
 * A loopback TCP proxy a test controls, put between Baton and a shared engine it must not stop:
 * `close()` cuts every connection and refuses new ones on the port (as a stopped server does),
 * `open()` listens on the same port again.
 */
export interface TcpProxy {
  port: number;
  url: string;
  open(): Promise<void>;
  close(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, scheme = 'http'): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const track = (s: Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const open = (): Promise<void> =>
    new Promise((resolve, reject) => {
      if (server) return resolve();
      const s = createServer((client) => {
        track(client);
        const upstream = connect(target.port, target.host);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        server = s;
        resolve();
      });
    });
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      const s = server;
      server = undefined;
      for (const sock of sockets) sock.destroy();
      if (!s) return resolve();
      s.close(() => resolve());
    });
  await open();
  return { port, url: `${scheme}://127.0.0.1:${port}`, open, close, stop: close };
}

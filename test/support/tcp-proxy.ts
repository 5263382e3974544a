import { createServer, connect, type Server, type Socket } from 'node:net';

// A TCP proxy on loopback that a test puts between one process and a server, to cut the link (a network
// partition as the process sees it: its connections reset, new ones refused) and restore it.

export interface TcpProxy {
  port: number;
  /** `scheme://127.0.0.1:port`, for a client that takes a URL. */
  url: string;
  /** Destroys every proxied connection and refuses new ones until restore(). */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, scheme = 'http'): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const onConnection = (client: Socket): void => {
    const upstream = connect(target.port, target.host);
    open.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  };
  const listen = (server: Server, port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  let server = createServer(onConnection);
  const port = await listen(server, 0);
  let listening = true;
  const stopListening = (): Promise<void> =>
    new Promise((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
    });
  const cut = async (): Promise<void> => {
    const closed = stopListening();
    for (const s of open) s.destroy();
    open.clear();
    await closed;
  };
  return {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    cut,
    async restore() {
      if (listening) return;
      server = createServer(onConnection);
      await listen(server, port);
      listening = true;
    },
    close: cut,
  };
}

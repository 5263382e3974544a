import net from 'node:net';

// Sends a request line exactly as written over a loopback socket: HTTP clients (fetch, undici, curl)
// normalise targets, so they cannot send the spellings the edge must read the way the router does.

export interface RawLineReply {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** The socket stayed silent past the limit. */
  hung?: true;
}

export interface RawLineRequest {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** One request on its own connection (Connection: close); `silenceMs` bounds how long a silent server is waited for. */
export function sendRequestLine(port: number, r: RawLineRequest, silenceMs = 10_000): Promise<RawLineReply> {
  const headers: Record<string, string> = { Host: `127.0.0.1:${port}`, Connection: 'close', ...r.headers };
  if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
  const head = `${r.method} ${r.target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(r.body ?? '', 'utf8')])));
    socket.setTimeout(silenceMs, () => {
      socket.destroy();
      resolve({ status: 0, headers: {}, text: '', hung: true });
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return resolve({ status: 0, headers: {}, text: all.toString('latin1') });
      const [statusLine, ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
      const replyHeaders = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const rawBody = all.subarray(split + 4);
      const text = (replyHeaders['transfer-encoding'] === 'chunked' ? dechunk(rawBody) : rawBody).toString('utf8');
      let json: unknown;
      if ((replyHeaders['content-type'] ?? '').includes('json') && text !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: replyHeaders, text, json });
    });
  });
}

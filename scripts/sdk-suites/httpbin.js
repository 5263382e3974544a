// A loopback stand-in for the httpbin the SDKs' suites call from HTTP tasks: /api/hello greets, anything else echoes.
const http = require('node:http');

const port = Number(process.argv[2] ?? 8081);
http
  .createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    res.setHeader('content-type', 'application/json');
    if (u.pathname === '/api/hello') return void res.end(JSON.stringify({ message: `Hello ${u.searchParams.get('name') ?? ''}` }));
    res.end(JSON.stringify({ method: req.method, path: u.pathname, args: Object.fromEntries(u.searchParams) }));
  })
  .listen(port, '127.0.0.1');

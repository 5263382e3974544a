// Which paths belong to the operator console (pure, shared by the console's router and the auth gate).

/** Every path but the API, its document, health and the Dapr app channel: the console routes on the client. */
export function isConsolePath(urlPath: string): boolean {
  const p = urlPath.toLowerCase();
  return !(
    p === '/api' ||
    p.startsWith('/api/') ||
    p.startsWith('/api-docs') ||
    p.startsWith('/apitasks') ||
    p === '/health' ||
    p === '/healthz' ||
    p === '/healthz/' ||
    p.startsWith('/dapr/') ||
    p.startsWith('/actors/')
  );
}

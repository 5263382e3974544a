// The request target read once, before the gate, the hot path and express (pure: request line in,
// verdict out). Every later part reads the one canonical origin-form this returns, so the
// permission the gate decides is the permission of the route that runs. Refusals are 400s, as
// Tomcat under Conductor answers backslashes, fragments and dot segments.

/** An origin-form target: `path` as sent (percent escapes kept, as express's router reads it), `query` after the `?`. */
export interface RequestTarget {
  path: string;
  /** Without its `?`; '' when there was none or it was empty. */
  query: string;
  /** What `req.url` becomes: `path`, then `?query` when the target had a `?`. */
  url: string;
}

export type TargetReading = { kind: 'target'; target: RequestTarget } | { kind: 'asterisk' } | { kind: 'refused'; message: string };

const refused = (message: string): TargetReading => ({ kind: 'refused', message });

// RFC 3986 pchar (unreserved, sub-delims, ':' and '@') plus '/': parseurl's fast path takes all of
// these as they are, so express's pathname is exactly this string. ';' stays an ordinary character
// (Tomcat would cut path parameters): the gate's segments and express's patterns both read it literally.
const PATH_CHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const INVALID_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
// Visible ASCII: the query reaches handlers only, but a space, control or non-ASCII character would
// send parseurl to its slow path (url.parse), which reads the whole target differently.
const QUERY_CHAR = /^[\x21-\x7e]*$/;
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?]*)(.*)$/s;

/** Reads a request line's target against its Host header; `method` only matters for `*`. */
export function readRequestTarget(method: string | undefined, raw: string, host: string | undefined): TargetReading {
  if (raw === '') return refused('Empty request target');
  // `*` names the server, not a resource (RFC 9110 OPTIONS *); for any other method it means nothing.
  if (raw === '*') return method === 'OPTIONS' ? { kind: 'asterisk' } : refused(`The request target * is only for OPTIONS, not ${method ?? 'this method'}`);
  // A fragment is never sent by a client: url.parse cuts there while a plain split does not.
  if (raw.includes('#')) return refused("A request target cannot hold '#' (a fragment stays in the client)");
  // url.parse turns '\' into '/' while the gate and the router would not: refused, as Tomcat does.
  if (raw.includes('\\')) return refused("A request target cannot hold '\\'");

  let origin = raw;
  if (!raw.startsWith('/')) {
    const abs = ABSOLUTE_FORM.exec(raw);
    if (!abs) return refused('The request target must be a path starting with /');
    const [, scheme, authority, rest] = abs as unknown as [string, string, string, string];
    if (!/^https?$/i.test(scheme)) return refused(`The request target's scheme ${JSON.stringify(scheme)} is not http or https`);
    // Absolute-form is for proxies: accepted only when it names this server as the Host header does.
    if (authority === '' || authority.includes('@') || host === undefined || authority.toLowerCase() !== host.trim().toLowerCase())
      return refused("The request target's authority must be the Host header's");
    origin = rest.startsWith('/') ? rest : `/${rest}`;
  }

  const q = origin.indexOf('?');
  let path = q < 0 ? origin : origin.slice(0, q);
  const query = q < 0 ? '' : origin.slice(q + 1);
  if (!QUERY_CHAR.test(query)) return refused('The query holds a space, control or non-ASCII character (percent-encode it)');
  if (!PATH_CHAR.test(path)) return refused('The path holds a character outside RFC 3986 (percent-encode it)');
  if (INVALID_ESCAPE.test(path)) return refused("The path holds a '%' that starts no percent escape");
  // Repeated slashes are merged, as Tomcat does for Conductor: a client whose base URL ends in '/' keeps working.
  path = path.replace(/\/{2,}/g, '/');
  // An encoded '/' or '\\' stays inside its segment for the gate and every router (none decodes before it
  // splits), so names may hold one (a task type "a/b", daprd's escaped topics and actor ids). Dot segments
  // are refused rather than resolved, also behind an encoded separator, for the file server that decodes first.
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return refused('The path holds a percent escape that is not UTF-8');
    }
    if (decoded.split(/[/\\]/).some((part) => part === '.' || part === '..')) return refused('The path cannot hold . or .. segments');
  }
  return { kind: 'target', target: { path, query, url: q < 0 ? path : `${path}?${query}` } };
}

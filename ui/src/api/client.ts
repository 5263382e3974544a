// The console's one way to the API: same origin, JSON in and out, the token when signed in, and
// the server's error body (message, validation errors) kept on the thrown error for display.

export interface ValidationError {
  path?: string;
  message: string;
  invalidValue?: unknown;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly validationErrors: ValidationError[] = [],
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

const TOKEN_KEY = 'baton.console.token';
let token: string | undefined = sessionStorage.getItem(TOKEN_KEY) ?? undefined;
const signedOutListeners = new Set<() => void>();

export function setToken(t: string | undefined): void {
  token = t;
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
}
export const currentToken = (): string | undefined => token;

/** Called when the server refuses the token (expired, key disabled): the console asks to sign in again. */
export function onSignedOut(f: () => void): () => void {
  signedOutListeners.add(f);
  return () => signedOutListeners.delete(f);
}

export type Query = Record<string, string | number | boolean | undefined | string[]>;

export function withQuery(path: string, q: Query = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === '') continue;
    if (Array.isArray(v)) for (const x of v) p.append(k, x);
    else p.set(k, String(v));
  }
  const s = p.toString();
  return s ? `${path}?${s}` : path;
}

export async function api<T = unknown>(method: string, path: string, body?: unknown, q?: Query): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json, text/plain' };
  if (token) headers['X-Authorization'] = token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(path, q), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiFailure(0, `The server did not answer: ${(e as Error).message}`);
  }
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json') && text ? safeParse(text) : undefined;
  if (!res.ok) {
    const b = (json ?? {}) as { message?: string; validationErrors?: ValidationError[]; error?: string };
    if (res.status === 401 && token) for (const f of signedOutListeners) f();
    throw new ApiFailure(res.status, b.message ?? (text || `${res.status} ${res.statusText}`), b.validationErrors ?? [], b.error);
  }
  return (json !== undefined ? json : text) as T;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const errorText = (e: unknown): string =>
  e instanceof ApiFailure ? `${e.status ? `${e.status}: ` : ''}${e.message}` : e instanceof Error ? e.message : String(e);

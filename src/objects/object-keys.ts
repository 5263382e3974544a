// What an object key may be, the same for every adapter: segments of letters, digits and `._=-`
// joined by '/', no segment empty or starting with '.', at most 1024 characters. On disk a key is a
// relative path under the store's directory; these rules keep it there (no '..', no absolute path).

export const MAX_OBJECT_KEY_LENGTH = 1024;
const SEGMENT = /^[A-Za-z0-9_=-][A-Za-z0-9._=-]*$/;

/** A key outside the documented character set: the caller's mistake (a 400 where a client sent it). */
export class InvalidObjectKeyError extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`invalid object key ${JSON.stringify(key.length > 80 ? key.slice(0, 80) + '...' : key)}: ${reason}`);
    this.name = 'InvalidObjectKeyError';
  }
}

/** Why a key is refused, or undefined when it is a valid key. */
export function objectKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'it is empty';
  if (key.length > MAX_OBJECT_KEY_LENGTH) return `it is longer than ${MAX_OBJECT_KEY_LENGTH} characters`;
  for (const segment of key.split('/')) {
    if (segment === '') return "it has an empty segment (a leading, trailing or doubled '/')";
    if (!SEGMENT.test(segment)) return "a segment holds a character outside A-Z a-z 0-9 . _ = - or starts with '.'";
  }
  return undefined;
}

/** The key itself when valid; else throws InvalidObjectKeyError. */
export function checkObjectKey(key: string): string {
  const problem = objectKeyProblem(key);
  if (problem) throw new InvalidObjectKeyError(key, problem);
  return key;
}

/** A list prefix: empty, or what a key may start with (a partial last segment allowed). */
export function checkObjectPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  const probe = prefix.endsWith('/') ? prefix + 'x' : prefix;
  const problem = objectKeyProblem(probe);
  if (problem) throw new InvalidObjectKeyError(prefix, problem);
  return prefix;
}

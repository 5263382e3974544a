// Look-ups and writes keyed by user data (task references, variables, input keys, case values) on plain
// objects: a key such as `constructor`, `toString` or `__proto__` must mean the object's own entry, never
// what Object.prototype holds, and writing `__proto__` must add an entry, not replace the prototype.

/** The value `obj` holds under `key` itself; undefined when it has no own entry of that name. */
export function ownValue<T>(obj: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return obj != null && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets `key` as an own, enumerable entry of `obj` (plain assignment of `__proto__` would set the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

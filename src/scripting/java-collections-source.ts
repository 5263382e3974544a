/**
 * Guest code run in every fresh QuickJS context before the script (js-worker-source.ts). Conductor
 * runs scripts in GraalJS with `$` made of Java Maps and Lists, so scripts written for it call
 * `$.list.get(0)`, `$.list.size()`, `$.map.containsKey('k')`. Here `$` is plain JSON, so:
 * - arrays answer the common java.util.List methods (non-enumerable on Array.prototype, so length,
 *   indexing, map, for-of and JSON.stringify are unchanged);
 * - the objects of `$` answer the common java.util.Map methods from their prototype, which is
 *   Object.prototype plus these (own keys win; objects the script builds are untouched, so property
 *   descriptors and Proxy handlers never see a `get`).
 * The completion value is the function that parses the input text into `$`.
 *
 * Installing them costs about 1.5 ms an evaluation and two to three times the time to bind a large
 * `$` (measured on a loaded 2-core host: 2.0 -> 3.6 ms a small evaluation; 0.5 -> 1.3 s for 50,000
 * objects), so it is done only for a script that calls one of these methods by name (JAVA_METHOD_CALL).
 */

/** A script calls a List or Map method by name (`.size(`); a computed call (`x['size']()`) is not seen. */
export const JAVA_METHOD_CALL =
  /\.\s*(get|set|size|isEmpty|contains|containsAll|add|addAll|remove|clear|toArray|getOrDefault|containsKey|containsValue|put|keySet|values|entrySet)\s*\(/;
export const JAVA_COLLECTIONS_SOURCE = String.raw`
(function (parse, defineProperty, keys, hasOwn) {
  const equal = (a, b) => {
    if (a === b) return true;
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = keys(a);
    if (ka.length !== keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && equal(a[k], b[k]));
  };
  const methods = (target, table) => {
    for (const name of keys(table)) defineProperty(target, name, { value: table[name], enumerable: false, writable: true, configurable: true });
  };
  const checkIndex = (list, i, size) => {
    if (!Number.isInteger(i) || i < 0 || i >= size) throw new RangeError('Index ' + i + ' out of bounds for length ' + size);
  };
  methods(Array.prototype, {
    get(i) { checkIndex(this, i, this.length); return this[i]; },
    set(i, v) { checkIndex(this, i, this.length); const old = this[i]; this[i] = v; return old; },
    size() { return this.length; },
    isEmpty() { return this.length === 0; },
    contains(v) { return this.some((x) => equal(x, v)); },
    containsAll(c) { return Array.from(c).every((v) => this.some((x) => equal(x, v))); },
    add(a, b) {
      if (arguments.length < 2) { this.push(a); return true; }
      checkIndex(this, a, this.length + 1);
      this.splice(a, 0, b);
    },
    addAll(c) { const items = Array.from(c); this.push(...items); return items.length > 0; },
    remove(v) {
      if (Number.isInteger(v)) { checkIndex(this, v, this.length); return this.splice(v, 1)[0]; }
      const i = this.findIndex((x) => equal(x, v));
      if (i < 0) return false;
      this.splice(i, 1);
      return true;
    },
    clear() { this.length = 0; },
    toArray() { return this.slice(); },
  });
  const javaMap = Object.create(Object.prototype);
  methods(javaMap, {
    get(k) { return hasOwn(this, k) ? this[k] : null; },
    getOrDefault(k, d) { return hasOwn(this, k) ? this[k] : d; },
    containsKey(k) { return hasOwn(this, k); },
    containsValue(v) { return keys(this).some((k) => equal(this[k], v)); },
    put(k, v) { const old = hasOwn(this, k) ? this[k] : null; this[k] = v; return old; },
    remove(k) { if (!hasOwn(this, k)) return null; const old = this[k]; delete this[k]; return old; },
    keySet() { return keys(this); },
    values() { return keys(this).map((k) => this[k]); },
    entrySet() { return keys(this).map((k) => ({ key: k, value: this[k], getKey() { return k; }, getValue() { return this.value; } })); },
    size() { return keys(this).length; },
    isEmpty() { return keys(this).length === 0; },
  });
  return function bind(text) {
    const root = parse(text);
    const pending = [root];
    while (pending.length > 0) {
      const v = pending.pop();
      if (v === null || typeof v !== 'object') continue;
      if (!Array.isArray(v)) Object.setPrototypeOf(v, javaMap);
      for (const k of keys(v)) if (v[k] !== null && typeof v[k] === 'object') pending.push(v[k]);
    }
    return root;
  };
})(JSON.parse, Object.defineProperty, Object.keys, (o, k) => Object.prototype.hasOwnProperty.call(o, k))
`;

// Request-target spellings of one concrete path, the ways two URL parsers have been seen to read
// apart: absolute-form, fragments, backslashes, repeated and dot segments, encoded separators and
// letters, case, trailing slashes and `;` parameters.

export interface Spelling {
  /** What the spelling does, for failure messages. */
  kind: string;
  target: string;
}

/** `path` is a concrete origin-form path ('/api/secrets/k'); `host` is the Host header the request carries. */
export function targetSpellings(path: string, host: string): Spelling[] {
  const segs = path.split('/').slice(1);
  const last = segs.length - 1;
  const head = '/' + segs.slice(0, last).join('/');
  // For a one-segment path the prefix is '/', so each spelling still starts as an origin-form target.
  const prefix = last > 0 ? head : '/';
  const at = (i: number, f: (s: string) => string): string => '/' + segs.map((s, j) => (j === i ? f(s) : s)).join('/');
  const encodeFirstLetter = (s: string): string => {
    const i = s.search(/[a-z]/i);
    return i < 0 ? s : `${s.slice(0, i)}%${s.charCodeAt(i).toString(16)}${s.slice(i + 1)}`;
  };
  const out: Spelling[] = [
    { kind: 'as declared', target: path },
    { kind: 'absolute-form, own host', target: `http://${host}${path}` },
    { kind: 'absolute-form, upper-case scheme', target: `HTTPS://${host}${path}` },
    { kind: 'absolute-form, other host', target: `http://other.invalid${path}` },
    { kind: 'absolute-form, own host and a fragment', target: `http://${host}${path}#/tags` },
    { kind: 'fragment', target: `${path}#` },
    { kind: 'fragment naming a tags path', target: `${path}#/tags` },
    { kind: 'fragment before the last segment', target: `${prefix}#/${segs[last]}` },
    { kind: 'backslash for the last slash', target: `${prefix}\\${segs[last]}` },
    { kind: 'backslash and a fragment', target: `${prefix}\\${segs[last]}#` },
    { kind: 'doubled slash inside', target: `${prefix}//${segs[last]}` },
    { kind: 'leading doubled slash', target: `/${path}` },
    { kind: 'dot segment', target: `${prefix}/./${segs[last]}` },
    { kind: 'dot-dot segment', target: `${prefix}/zz/../${segs[last]}` },
    { kind: 'encoded dot-dot segment', target: `${prefix}/zz/%2E%2e/${segs[last]}` },
    { kind: 'encoded slash', target: `${prefix}%2f${segs[last]}` },
    { kind: 'encoded backslash', target: `${prefix}%5C${segs[last]}` },
    { kind: 'upper case', target: path.toUpperCase() },
    { kind: 'trailing slash', target: `${path}/` },
    { kind: 'two trailing slashes', target: `${path}//` },
    { kind: '; parameter on the last segment', target: `${path};x=y` },
    { kind: '; parameter on the first segment', target: at(0, (s) => `${s};x=y`) },
    { kind: 'first letter percent-encoded', target: at(Math.min(1, last), encodeFirstLetter) },
  ];
  return out;
}

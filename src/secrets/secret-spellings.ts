// Every spelling a secret value can take in what Baton stores of an HTTP call's outcome (pure). The
// outcome is text someone else wrote: a body echoing a header, a URI or a request body, an error
// naming the URI, a redirect's Location. Each spelling below is one a common server, client library
// or Baton itself writes; a spelling that is not listed is shown as written.
//
// - as is: headers and bodies echoed verbatim, a JSON body once parsed.
// - JSON string content (a body kept as text, or Baton's own `invalid URI "..."`): `"` `\` and control
//   characters escaped; also with non-ASCII as \uXXXX in either hex case (Python's json.dumps, Jackson's
//   ESCAPE_NON_ASCII) and with `/` as `\/` (PHP's json_encode).
// - percent-encoded, in upper and lower hex: encodeURIComponent and encodeURI (what clients build URIs
//   with), the WHATWG URL path and query sets (what `new URL()`, hence fetch, Location and error
//   messages show), and HTML forms (application/x-www-form-urlencoded, space as `+`).
// - base64, standard and URL-safe alphabets (a Basic auth header echoed back): the secret's bytes
//   start at any offset of the encoded text, so each of the three alignments is masked over the
//   characters that hold only the secret's bytes (at most two bytes at either end stay visible).
// - HTML-escaped (an error page echoing the URI).
// Not masked: spellings nested twice (JSON inside a JSON string inside a body), hashes and other
// one-way or keyed transforms, and mixtures (part encoded, part not) beyond the ones listed.

const printable = (c: string): boolean => c >= '!' && c <= '~';

/** Characters each percent-encoding leaves as they are (ASCII only; everything else is encoded as UTF-8 bytes). */
const KEPT = {
  component: (c: string) => /^[A-Za-z0-9\-_.!~*'()]$/.test(c),
  uri: (c: string) => /^[A-Za-z0-9\-_.!~*'();,/?:@&=+$#]$/.test(c),
  // The WHATWG URL path and query percent-encode sets.
  urlPath: (c: string) => printable(c) && !'"#<>?`{}'.includes(c),
  urlQuery: (c: string) => printable(c) && !`"#<>'`.includes(c),
  form: (c: string) => /^[A-Za-z0-9*\-._]$/.test(c),
} as const;

function percentEncode(value: string, form: keyof typeof KEPT): string {
  let out = '';
  for (const ch of value) {
    if (KEPT[form](ch)) out += ch;
    else if (form === 'form' && ch === ' ') out += '+';
    else for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const lowerHex = (encoded: string): string => encoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());

function jsonSpellings(value: string): string[] {
  const plain = JSON.stringify(value).slice(1, -1);
  const asciiLower = plain.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const asciiUpper = asciiLower.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`);
  return [plain, asciiLower, asciiUpper].flatMap((s) => [s, s.replace(/\//g, '\\/')]);
}

/** Base64 of the secret's bytes at each alignment, over the whole groups of three bytes that hold only them. */
function base64Spellings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole <= 0) continue;
    const core = bytes.subarray(skip, skip + whole);
    out.push(core.toString('base64'), core.toString('base64url'));
  }
  return out;
}

const htmlEscape = (value: string): string => value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The spellings of `value` to mask, longest first (a longer one may contain a shorter one), without repeats. */
export function secretSpellings(value: string): string[] {
  if (value.length === 0) return [];
  const percent = (Object.keys(KEPT) as Array<keyof typeof KEPT>).map((k) => percentEncode(value, k));
  const all = [value, ...jsonSpellings(value), ...percent, ...percent.map(lowerHex), ...base64Spellings(value), htmlEscape(value)];
  return [...new Set(all)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

"""Request-line phase of `npm run fuzz`: odd spellings of the documented routes, as raw request lines.

HTTP clients (requests, curl) normalise a URL before sending it, so they never send what an attacker
does: absolute-form targets, fragments, backslashes, encoded separators, dot segments, odd case,
`;` parameters, bad escapes. This phase writes request lines itself on loopback sockets to a Baton
with auth on, with a fixed seed and a bounded count, and reports as findings: a 5xx, an answer to
an unauthenticated request for a route that needs a token that is neither a refusal nor the
console's page, and a request left unanswered (a hang). Standard library only.
"""

from __future__ import annotations

import json
import random
import socket
from dataclasses import dataclass

# The key the phase's server starts with (BATON_ADMIN_KEY_ID/SECRET): only this throwaway server knows it.
ADMIN_KEY = {"keyId": "fuzz-admin", "keySecret": "fuzz-admin-secret-0123456789abcdef"}

PARAM_VALUES = ["v1", "fuzz_task", "a.b", "x;y=z", "%41", "UPPER", "..", "%2e%2e", "a%2fb", "a%5Cb"]
OTHER_HOST = "other.invalid"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def send(port: int, method: str, target: str, headers: dict[str, str], body: bytes, timeout: float) -> Reply | None:
    """One request line exactly as given, on its own connection; None when the server stays silent past `timeout`."""
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    data = head.encode("latin-1") + b"\r\n" + body
    chunks: list[bytes] = []
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        try:
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except socket.timeout:
            return None
    raw = b"".join(chunks)
    head_end = raw.find(b"\r\n\r\n")
    if head_end < 0:
        return Reply(0, {}, raw)
    lines = raw[:head_end].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    reply_headers = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    return Reply(status, reply_headers, raw[head_end + 4 :])


def documented_routes(port: int, token: str) -> list[tuple[str, str, dict[str, list[str]]]]:
    """(method, template, enum values per path parameter) of every operation of /api-docs."""
    r = send(port, "GET", "/api-docs", {"Host": f"127.0.0.1:{port}", "Connection": "close", "X-Authorization": token}, b"", 30)
    if r is None or r.status != 200:
        raise SystemExit(f"fuzz: request lines: /api-docs answered {r and r.status}")
    body = r.body
    if r.headers.get("transfer-encoding") == "chunked":
        body = dechunk(body)
    doc = json.loads(body)
    out = []
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if method not in ("get", "post", "put", "delete"):
                continue
            enums = {p["name"]: p.get("schema", {}).get("enum") for p in op.get("parameters", []) if p.get("in") == "path"}
            out.append((method.upper(), path, {k: v for k, v in enums.items() if v}))
    return out


def dechunk(body: bytes) -> bytes:
    out, at = [], 0
    while True:
        eol = body.find(b"\r\n", at)
        if eol < 0:
            return b"".join(out)
        size = int(body[at:eol].split(b";")[0] or b"0", 16)
        if size == 0:
            return b"".join(out)
        out.append(body[eol + 2 : eol + 2 + size])
        at = eol + 2 + size + 2


def concrete(template: str, enums: dict[str, list[str]], rnd: random.Random, plain: bool) -> str:
    def value(name: str) -> str:
        if name in enums:
            return enums[name][0] if plain else rnd.choice(enums[name])
        return "v1" if plain else rnd.choice(PARAM_VALUES)

    out, i = "", 0
    while i < len(template):
        if template[i] == "{":
            end = template.index("}", i)
            out += value(template[i + 1 : end])
            i = end + 1
        else:
            out += template[i]
            i += 1
    return out


def _slash_at(path: str, rnd: random.Random) -> int | None:
    slashes = [i for i, c in enumerate(path) if c == "/" and i > 0]
    return rnd.choice(slashes) if slashes else None


def mutate(path: str, host: str, rnd: random.Random) -> str:
    """One odd spelling of `path` (1 to 3 changes)."""

    def replace_slash(p: str, by: str) -> str:
        i = _slash_at(p, rnd)
        return p if i is None else p[:i] + by + p[i + 1 :]

    def encode_letter(p: str) -> str:
        letters = [i for i, c in enumerate(p) if c.isalpha()]
        if not letters:
            return p
        i = rnd.choice(letters)
        return f"{p[:i]}%{ord(p[i]):02{'x' if rnd.random() < 0.5 else 'X'}}{p[i + 1:]}"

    def random_case(p: str) -> str:
        return "".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in p)

    changes = [
        lambda p: f"http://{host}{p}",
        lambda p: f"HTTPS://{host}{p}",
        lambda p: f"http://{OTHER_HOST}{p}",
        lambda p: f"http://{host}@{OTHER_HOST}{p}",
        lambda p: p + rnd.choice(["#", "#/tags", "#/../admin/config", "#?x=1"]),
        lambda p: replace_slash(p, "\\"),
        lambda p: replace_slash(p, rnd.choice(["%2f", "%2F", "%5c", "%5C"])),
        lambda p: replace_slash(p, rnd.choice(["//", "///", "/./", "/../", "/%2e/", "/%2E%2e/", "/.%2e/", "/;x=y/"])),
        lambda p: p.upper(),
        random_case,
        lambda p: p + rnd.choice(["/", "//", "/.", "/..", ";", ";x=y", ";/tags"]),
        encode_letter,
        lambda p: p + rnd.choice(["%", "%z", "%zz", "%0", "%00", "%C0%AF", "%u002f"]),
        lambda p: p + rnd.choice(["?a=b", "?#", "?x=%zz", "?a=\\", "??", "?timeout=0&count=1"]),
        lambda p: rnd.choice(["/dapr/..", "/actors/..", "/actors%2f..", "/DAPR/../", "/healthz/.."]) + p,
        lambda p: rnd.choice(["/", "//", "/./", "/%2e%2e/"]) + p.lstrip("/"),
    ]
    out = path
    for _ in range(rnd.randint(1, 3)):
        out = rnd.choice(changes)(out)
    return out


def run(port: int, count: int, seed: int, timeout: float, log) -> int:
    """Sends `count` odd request lines; returns the number of findings (each logged)."""
    rnd = random.Random(seed)
    host = f"127.0.0.1:{port}"
    base = {"Host": host, "Connection": "close"}
    token_reply = send(port, "POST", "/api/token", {**base, "Content-Type": "application/json"}, json.dumps(ADMIN_KEY).encode(), 30)
    if token_reply is None or token_reply.status != 200:
        raise SystemExit(f"fuzz: request lines: POST /api/token answered {token_reply and token_reply.status}")
    admin = json.loads(token_reply.body)["token"]
    routes = documented_routes(port, admin)

    # Which routes need a token: their plain spelling, unauthenticated, is refused with 401.
    guarded: list[bool] = []
    for method, template, enums in routes:
        body = b"{}" if method in ("POST", "PUT") else b""
        headers = {**base, "Content-Type": "application/json"} if body else base
        r = send(port, method, concrete(template, enums, rnd, plain=True), headers, body, timeout)
        guarded.append(r is not None and r.status == 401)
    if not any(guarded):
        raise SystemExit("fuzz: request lines: no route needs a token; is auth on?")

    findings = 0
    for n in range(count):
        i = rnd.randrange(len(routes))
        method, template, enums = routes[i]
        if method == "GET" and rnd.random() < 0.15:
            method = "HEAD"
        target = mutate(concrete(template, enums, rnd, plain=False), host, rnd)
        body = b"{}" if method in ("POST", "PUT") else b""
        headers = {**base, "Content-Type": "application/json"} if body else dict(base)
        as_admin = rnd.random() < 1 / 3
        if as_admin:
            headers["X-Authorization"] = admin
        r = send(port, method, target, headers, body, timeout)
        what = f"{method} {target!r} ({'admin' if as_admin else 'no token'}; a spelling of {routes[i][0]} {template})"
        problem = None
        if r is None:
            problem = f"no answer within {timeout:.0f} s"
        elif r.status >= 500 or r.status == 0:
            problem = f"answered {r.status or 'nothing'}: {r.body[:200]!r}"
        elif not as_admin and guarded[i] and 200 <= r.status < 400 and not r.headers.get("content-type", "").startswith("text/html"):
            # text/html is the console's page, open to all and holding no data.
            problem = f"answered {r.status} without a token: {r.body[:200]!r}"
        if problem:
            findings += 1
            log(f"request lines: FINDING {what}: {problem}")
    log(f"request lines: {count} odd request lines to {len(routes)} documented operations, {findings} findings")
    return findings

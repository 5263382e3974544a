#!/usr/bin/env bash
# npm run fuzz [-- driver options]: odd request lines to an embedded Baton with auth on, then schemathesis against one with auth off, both built from this checkout.
# Installs the pinned schemathesis into a venv cached outside the repository (keyed by the hash of
# requirements.txt), builds Baton into .tmp/fuzz-dist (not dist/, which other builds share), then
# hands over to fuzz.py. Exit code: 0 when nothing was found, non-zero on any finding.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/scripts/fuzz"
cache="${BATON_CACHE_DIR:-$HOME/.cache/baton}"
python="$(command -v python3.11 || command -v python3)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "fuzz: schemathesis needs Python 3.11 or later ($python is older)" >&2; exit 2; }

key="$(sha256sum "$here/requirements.txt" | cut -c1-16)-py$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
venv="$cache/fuzz-venv-$key"
# The marker is written last, so an interrupted install is redone rather than half used.
if [[ ! -f "$venv/.installed" ]]; then
  echo "fuzz: installing schemathesis into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$here/requirements.txt"
  touch "$venv/.installed"
fi

echo "fuzz: building Baton into .tmp/fuzz-dist" >&2
cd "$root"
npx --no-install tsc -p tsconfig.build.json --outDir .tmp/fuzz-dist --tsBuildInfoFile .tmp/fuzz-dist/.tsbuildinfo

exec "$venv/bin/python" "$here/fuzz.py" --server "$root/.tmp/fuzz-dist/main.js" "$@"

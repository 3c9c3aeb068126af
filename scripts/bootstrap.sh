#!/usr/bin/env bash
# Create or update the project-local venv (.venv) with Python >= 3.12 and fxrod[test,docs]
# (the docs build is a test); FXROD_EXTRAS=test,docs,notebooks adds the notebook extra.
# Every dependency comes from the lock (uv.lock: exact versions and sha256 hashes, one
# resolution for Python 3.12 and 3.13 and every extra): uv, itself pinned and hash-checked
# by scripts/uv-requirements.txt, installs the lock's packages (`uv sync --locked`, which
# fails when the lock does not match pyproject.toml), then fxrod editable.
#   bash scripts/bootstrap.sh            the locked venv .venv
#   bash scripts/bootstrap.sh --latest   a second venv, .venv-latest, with the newest releases
#                                        pyproject.toml admits; prints the drift against the
#                                        lock and runs the default test tier there (the lock
#                                        is not touched; ./fxrod.sh lock re-resolves it)
# Interpreter search: $FXROD_PYTHON, else python3.13/python3.12/python3 on PATH that really
# run and are >= 3.12, else the newest pyenv-managed 3.12+/3.13+. A no-op when up to date.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$here/.venv"
stamp="$venv/.fxrod-installed"

version_ok() {  # $1: interpreter; prints its version when >= 3.12 and it runs
  "$1" -c 'import sys; assert sys.version_info >= (3, 12); print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null
}
describe() { "$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || echo "not runnable"; }

find_python() {
  if [ -n "${FXROD_PYTHON:-}" ]; then
    if ! command -v "$FXROD_PYTHON" >/dev/null 2>&1 && [ ! -x "$FXROD_PYTHON" ]; then
      echo "bootstrap: FXROD_PYTHON=$FXROD_PYTHON does not exist or is not executable" >&2; return 1
    fi
    if ! version_ok "$FXROD_PYTHON" >/dev/null; then
      echo "bootstrap: FXROD_PYTHON=$FXROD_PYTHON is Python $(describe "$FXROD_PYTHON"); fxrod needs Python >= 3.12" >&2; return 1
    fi
    echo "$FXROD_PYTHON"; return 0
  fi
  local found=""
  for cand in python3.13 python3.12 python3; do
    if command -v "$cand" >/dev/null 2>&1; then
      if version_ok "$cand" >/dev/null; then echo "$(command -v "$cand")"; return 0; fi
      found="$found $cand ($(describe "$cand"))"
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    local root best=""
    root="$(pyenv root)"
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.(1[2-9]|[2-9][0-9])\.[0-9]+$' | sort -t. -k1,1n -k2,2n -k3,3n); do
      [ -x "$root/versions/$v/bin/python3" ] && version_ok "$root/versions/$v/bin/python3" >/dev/null && best="$root/versions/$v/bin/python3"
    done
    if [ -n "$best" ]; then echo "$best"; return 0; fi
    found="$found pyenv:[$(pyenv versions --bare 2>/dev/null | tr '\n' ' ')]"
  fi
  echo "bootstrap: no Python >= 3.12 found (seen:${found:- none}). Install Python 3.12 or 3.13" \
       "(e.g. 'pyenv install 3.12', or Debian's python3 on trixie) or set FXROD_PYTHON." >&2
  return 1
}

extras="${FXROD_EXTRAS:-test,docs}"
export UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT="$venv"

install_uv() {  # $1: venv; the pinned uv, hash-checked
  "$1/bin/python" -m pip install --quiet --require-hashes --no-deps \
    -r "$here/scripts/uv-requirements.txt"
}

install_hook() {  # $1: venv; `import dolfinx` before `import fxrod` imports dolfinx_solver first
  local site
  site="$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  cp "$here/scripts/import_order_hook.py" "$site/_fxrod_import_order.py"
  echo "import _fxrod_import_order" > "$site/fxrod-import-order.pth"
}

if [ "${1:-}" = "--latest" ]; then
  latest="$here/.venv-latest"
  py="$(find_python)"
  echo "bootstrap --latest: newest releases into $latest (Python $(describe "$py"))" >&2
  rm -rf "$latest"
  "$py" -m venv "$latest"
  install_uv "$latest"
  VIRTUAL_ENV="$latest" "$latest/bin/uv" pip install --quiet --python "$latest/bin/python" \
    --upgrade -e "$here[$extras]"
  install_hook "$latest"
  "$latest/bin/python" "$here/scripts/lock_drift.py" "$here/uv.lock"
  cd "$here"
  r=0
  "$latest/bin/python" -m pytest -m "not slow" -q || r=$?
  echo "bootstrap --latest: default tier on the newest releases: exit $r (the lock is unchanged)"
  exit "$r"
fi

# Up to date? (venv exists, runs, and neither the project, the lock nor the extras changed)
want="$( (cat "$here/pyproject.toml" "$here/uv.lock" "$here/scripts/uv-requirements.txt" \
              "$here/scripts/import_order_hook.py"; echo "$extras") | sha256sum | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
   && version_ok "$venv/bin/python" >/dev/null; then
  exit 0
fi

t0=$(date +%s)
if [ -x "$venv/bin/python" ] && version_ok "$venv/bin/python" >/dev/null; then
  echo "bootstrap: updating $venv (Python $(describe "$venv/bin/python"))" >&2
else
  py="$(find_python)"
  echo "bootstrap: using $py (Python $(describe "$py")) -> $venv" >&2
  rm -rf "$venv"
  "$py" -m venv "$venv"
fi
install_uv "$venv"
extra_args=()
IFS=',' read -ra wanted <<< "$extras"
for e in "${wanted[@]}"; do [ -n "$e" ] && extra_args+=(--extra "$e"); done
(cd "$here" && "$venv/bin/uv" sync --quiet --locked --inexact --python "$venv/bin/python" \
   "${extra_args[@]}")
install_hook "$venv"
echo "$want" > "$stamp"
echo "bootstrap: done in $(( $(date +%s) - t0 )) s ($(du -sh "$venv" | cut -f1) in .venv)" >&2

#!/usr/bin/env bash
# fxrod front door: bootstraps the project-local venv when needed, then
#   ./fxrod.sh demo [demo options]   run the flying-spaghetti demo (results/flying_spaghetti)
#   ./fxrod.sh test [pytest args]    every test tier (default, then slow); with args: pytest args
#   ./fxrod.sh bootstrap [--latest]  only create/update .venv (from uv.lock); --latest: the
#                                    newest releases in .venv-latest, drift + default tier
#   ./fxrod.sh lock                  re-resolve uv.lock to the newest releases (then test)
#   ./fxrod.sh docs [--out DIR]      build the documentation site into docs/_build/html (-W)
#   ./fxrod.sh run|list|plot|view|info|sweep|modes|phmodel|--version ...   the fxrod CLI
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cmd="${1:-help}"
[ $# -gt 0 ] && shift
case "$cmd" in
  bootstrap) exec bash "$here/scripts/bootstrap.sh" "$@" ;;
  lock)
    bash "$here/scripts/bootstrap.sh"
    cd "$here"
    UV_PYTHON_DOWNLOADS=never "$here/.venv/bin/uv" lock --upgrade --python "$here/.venv/bin/python"
    UV_PYTHON_DOWNLOADS=never "$here/.venv/bin/uv" export --frozen --no-emit-project \
      --no-header --format requirements-txt -o docker/requirements.txt --quiet
    echo "fxrod.sh lock: uv.lock and docker/requirements.txt re-resolved; run ./fxrod.sh test, then commit both" ;;
  demo)
    bash "$here/scripts/bootstrap.sh"
    exec "$here/.venv/bin/python" "$here/demos/flying_spaghetti.py" "$@" ;;
  test)
    bash "$here/scripts/bootstrap.sh"
    cd "$here"
    if [ $# -gt 0 ]; then exec "$here/.venv/bin/python" -m pytest "$@"; fi
    # every tier: the default one (MPI and container tests included), then the slow studies
    rc=0
    for tier in "not slow" "slow"; do
      start=$(date +%s)
      r=0
      "$here/.venv/bin/python" -m pytest -m "$tier" || r=$?
      echo "fxrod.sh test: tier '$tier': exit $r, $(( $(date +%s) - start )) s"
      [ "$rc" -eq 0 ] && rc=$r
    done
    exit "$rc" ;;
  run|list|plot|view|info|sweep|modes|phmodel|docs|--version)
    bash "$here/scripts/bootstrap.sh"
    exec "$here/.venv/bin/python" -m fxrod "$cmd" "$@" ;;
  help|-h|--help)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) echo "fxrod.sh: unknown command '$cmd' (try: demo, test, bootstrap, lock, docs, run, list, plot, view, info, sweep, modes, phmodel, --version)" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# fxrod front door: bootstraps the project-local venv when needed, then
#   ./fxrod.sh demo [demo options]   run the flying-spaghetti demo (results/flying_spaghetti)
#   ./fxrod.sh test [pytest args]    run the whole test suite (incl. MPI tests under mpirun -n 2)
#   ./fxrod.sh bootstrap             only create/update .venv
#   ./fxrod.sh run|list|plot|view|info ...   the fxrod CLI inside the venv
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cmd="${1:-help}"
[ $# -gt 0 ] && shift
case "$cmd" in
  bootstrap) exec bash "$here/scripts/bootstrap.sh" ;;
  demo)
    bash "$here/scripts/bootstrap.sh"
    exec "$here/.venv/bin/python" "$here/demos/flying_spaghetti.py" "$@" ;;
  test)
    bash "$here/scripts/bootstrap.sh"
    cd "$here"
    exec "$here/.venv/bin/python" -m pytest "$@" ;;
  run|list|plot|view|info|sweep)
    bash "$here/scripts/bootstrap.sh"
    exec "$here/.venv/bin/python" -m fxrod "$cmd" "$@" ;;
  help|-h|--help)
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) echo "fxrod.sh: unknown command '$cmd' (try: demo, test, bootstrap, run, list, plot, view, info)" >&2; exit 2 ;;
esac

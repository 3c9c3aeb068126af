"""Print how the running environment's packages differ from the lock (uv.lock).

Used by ``./fxrod.sh bootstrap --latest``: that venv holds the newest releases that
pyproject.toml admits, and this table says which of them the lock would move. Read-only: the
lock is never written here (``./fxrod.sh lock`` re-resolves it).
"""

from __future__ import annotations

import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def locked_versions(lock: Path) -> dict[str, set[str]]:
    """Package name -> the versions the lock holds (two where a marker splits Pythons)."""
    out: dict[str, set[str]] = {}
    for pkg in tomllib.loads(lock.read_text())["package"]:
        if "version" in pkg and pkg.get("source", {}).get("editable") is None:
            out.setdefault(_norm(pkg["name"]), set()).add(pkg["version"])
    return out


def main(lock: str) -> int:
    locked = locked_versions(Path(lock))
    rows = []
    # Only the environment's own site-packages: setuptools puts its ``_vendor`` folder (with
    # older copies of packaging, platformdirs, more-itertools) on sys.path once imported.
    site = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    for dist in metadata.distributions(path=site):
        name = _norm(dist.metadata["Name"])
        if name in locked and dist.version not in locked[name]:
            rows.append((name, "/".join(sorted(locked[name])), dist.version))
    if not rows:
        print("lock drift: none (every installed package is at its locked version)")
        return 0
    print(f"lock drift: {len(rows)} package(s) not at the locked version")
    print(f"  {'package':32s} {'locked':>14s} {'installed':>14s}")
    for name, old, new in sorted(rows):
        print(f"  {name:32s} {old:>14s} {new:>14s}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

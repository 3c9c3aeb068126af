"""docker/Dockerfile really builds, and the flying-spaghetti demo really runs in the image.

No Docker engine and no container registry here, and running a container is refused by the
sandbox, so the test uses Debian's podman. It never installs system packages: without
``podman`` on PATH (or without ``debootstrap`` while the base image is missing) it is skipped.
CI installs both first (``.ci/run``). Steps:

1. base image ``debian:trixie-slim`` made locally by ``docker/build_base.sh`` (debootstrap
   from the machine's Debian mirror + ``podman import``; cached while the image exists);
2. ``podman build --isolation chroot -f docker/Dockerfile`` with the host's CA trust store
   mounted read-only (PyPI is reached through a proxy with its own CA);
3. a small build ``FROM`` the fxrod image whose ``RUN`` steps run the demo (``--quick``,
   serial and under ``mpirun -n 2``) and assert on what it wrote; then the files are read
   back through ``podman image mount`` and checked here.
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = "docker.io/library/debian:trixie-slim"
IMAGE = "localhost/fxrod:latest"
CHECK = "localhost/fxrod-check:latest"
LOCK = Path(os.environ.get("TMPDIR", "/var/tmp")) / "fxrod-container-test.lock"

pytestmark = pytest.mark.container


def _run(cmd: list[str], log: Path, timeout: float, what: str,
         env: dict | None = None) -> float:
    """Run cmd with its output in log; pytest.fail with the log's tail when it fails."""
    t0 = time.perf_counter()
    with open(log, "w") as f:
        try:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                               cwd=ROOT, env=env, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{what} timed out after {timeout:.0f} s:\n{_tail(log)}")
    if p.returncode != 0:
        pytest.fail(f"{what} failed (exit {p.returncode}): {' '.join(cmd)}\n{_tail(log)}")
    return time.perf_counter() - t0


def _tail(log: Path, n: int = 60) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-n:])


def _require_tools() -> None:
    """Skip unless podman is on PATH, and debootstrap too when the base image is missing."""
    if shutil.which("podman") is None:
        pytest.skip("podman not installed: the container test needs podman on PATH "
                    "(e.g. apt-get install podman debootstrap; .ci/run does this in CI)")
    base_missing = subprocess.run(["podman", "image", "exists", BASE],
                                  stdin=subprocess.DEVNULL).returncode != 0
    if base_missing and shutil.which("debootstrap") is None:
        pytest.skip(f"debootstrap not installed: needed to make the base image {BASE} "
                    "(e.g. apt-get install debootstrap; .ci/run does this in CI)")


def _pip_config(key: str) -> str:
    """pip's own setting (env, then config files) for key, e.g. 'cert' or 'index-url'."""
    val = os.environ.get("PIP_" + key.upper().replace("-", "_"), "")
    if val:
        return val
    for pip in (str(ROOT / ".venv/bin/pip"), shutil.which("pip3"), shutil.which("pip")):
        if pip and Path(pip).exists():
            p = subprocess.run([pip, "config", "get", f"global.{key}"], capture_output=True,
                               text=True, stdin=subprocess.DEVNULL)
            if p.returncode == 0 and p.stdout.strip():
                return p.stdout.strip()
    return ""


def _build_args() -> list[str]:
    """The host's pip trust store and index settings, passed to the build.

    The CA bundle's directory is mounted read-only at /run/host-certs (not at its own path:
    apt in the build installs ca-certificates, which writes /etc/ssl/certs). Proxy variables
    (HTTP(S)_PROXY) are passed on by podman itself. Local (file://) indexes stay outside.
    """
    args: list[str] = []
    cert = (_pip_config("cert") or os.environ.get("REQUESTS_CA_BUNDLE")
            or os.environ.get("SSL_CERT_FILE") or "/etc/ssl/certs/ca-certificates.crt")
    cert_path = Path(cert).resolve()
    if cert_path.is_file():
        args += ["-v", f"{cert_path.parent}:/run/host-certs:ro",
                 "--build-arg", f"PIP_CERT_FILE=/run/host-certs/{cert_path.name}"]
    index = _pip_config("index-url")
    if urlparse(index).scheme in ("http", "https"):
        args += ["--build-arg", f"PIP_INDEX={index}"]
    extra = [u for u in _pip_config("extra-index-url").split()
             if urlparse(u).scheme in ("http", "https")]
    if extra:
        args += ["--build-arg", f"PIP_EXTRA_INDEX={extra[0]}"]
    return args


def _image_id(ref: str) -> str:
    p = subprocess.run(["podman", "image", "inspect", "--format", "{{.Id}}", ref],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return p.stdout.strip() if p.returncode == 0 else ""


CHECK_CONTAINERFILE = f"""\
FROM {IMAGE}
COPY check_results.py /tmp/check_results.py
RUN test "$UCX_TLS" = "self,sm,tcp" \\
 && python demos/flying_spaghetti.py --quick --quiet --out /check \\
 && python /tmp/check_results.py /check
RUN mpirun -n 2 python demos/flying_spaghetti.py --quick --quiet --no-pictures --out /check-mpi \\
 && test -s /check-mpi/flying_spaghetti.csv
RUN python -m fxrod info | grep -q "fast Jacobian assembly: available"
"""

# Runs inside the build, so that a broken demo fails the build itself.
CHECK_SCRIPT = """\
import csv, pathlib, sys
d = pathlib.Path(sys.argv[1])
rows = list(csv.DictReader(open(d / "flying_spaghetti.csv")))
assert {"t", "H", "p_1", "energy_residual"} <= set(rows[0]), rows[0].keys()
assert abs(float(rows[-1]["t"]) - 5.0) < 1e-9, rows[-1]["t"]
png = (d / "flying_spaghetti.png").read_bytes()
assert png[:8] == b"\\x89PNG\\r\\n\\x1a\\n" and len(png) > 5000, len(png)
print("container check: OK,", len(rows), "rows, png", len(png), "bytes")
"""


def test_docker_image_builds_and_runs_demo(tmp_path, capsys):
    _require_tools()
    t_start = time.perf_counter()
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one container build at a time on this machine

        t_base = None
        if subprocess.run(["podman", "image", "exists", BASE]).returncode != 0:
            t_base = _run(["bash", str(ROOT / "docker/build_base.sh")], tmp_path / "base.log",
                          900, "making the base image (docker/build_base.sh)")

        old = _image_id(IMAGE)
        t_build = _run(["podman", "build", "--isolation", "chroot", "--pull=never",
                        *_build_args(), "-f", "docker/Dockerfile", "-t", IMAGE, "."],
                       tmp_path / "build.log", 1800, "podman build -f docker/Dockerfile")
        new = _image_id(IMAGE)
        if old and old != new:  # drop the superseded image (its layers stay cached)
            subprocess.run(["podman", "rmi", old], capture_output=True)

        (tmp_path / "check").mkdir()
        (tmp_path / "check/Containerfile").write_text(CHECK_CONTAINERFILE)
        (tmp_path / "check/check_results.py").write_text(CHECK_SCRIPT)
        t_check = _run(["podman", "build", "--isolation", "chroot", "--pull=never",
                        "--no-cache", "-f", str(tmp_path / "check/Containerfile"), "-t", CHECK,
                        str(tmp_path / "check")],
                       tmp_path / "check.log", 900, "demo run in a build FROM the fxrod image")
        try:
            mnt = subprocess.run(["podman", "image", "mount", CHECK], capture_output=True,
                                 text=True, stdin=subprocess.DEVNULL)
            if mnt.returncode != 0:
                pytest.fail(f"podman image mount failed: {mnt.stderr}")
            out = Path(mnt.stdout.strip()) / "check"
            csv_text = (out / "flying_spaghetti.csv").read_text()
            png = (out / "flying_spaghetti.png").read_bytes()
            names = sorted(p.name for p in out.iterdir())
        finally:
            subprocess.run(["podman", "image", "unmount", CHECK], capture_output=True)
            subprocess.run(["podman", "rmi", CHECK], capture_output=True)

    rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert {"t", "kinetic", "H", "p_1", "J_1", "energy_residual"} <= set(rows[0]), rows[0]
    t = [float(r["t"]) for r in rows]
    assert t[0] == 0.0 and abs(t[-1] - 5.0) < 1e-9 and len(rows) > 10, (t[0], t[-1], len(t))
    # the load ends at t = 5 with p_1 = 50 (theory §4.1); H > 0 after the loading
    assert abs(float(rows[-1]["p_1"]) - 50.0) < 1e-6, rows[-1]["p_1"]
    assert float(rows[-1]["H"]) > 0
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000, len(png)
    for ext in (".gif", ".pvd"):
        assert f"flying_spaghetti{ext}" in names, names

    size = subprocess.run(["podman", "image", "inspect", "--format", "{{.Size}}", IMAGE],
                          capture_output=True, text=True).stdout.strip()
    with capsys.disabled():
        print(f"\n[container] base image: "
              f"{'cached' if t_base is None else f'{t_base:.0f} s'}; fxrod image build "
              f"{t_build:.0f} s ({int(size or 0) / 1e9:.2f} GB); demo check build "
              f"{t_check:.0f} s; total {time.perf_counter() - t_start:.0f} s")

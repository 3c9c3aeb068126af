"""Figure of the viscoelastic cantilever (the paper's Fig. 13, theory §4.2): the Hamiltonian
H(t) of the elastic and the viscoelastic rod, and the energy the viscoelastic rod dissipated.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from fxrod.output.tables import read_csv

_NEEDED = ("t", "H", "dissipated")


def _load(path: str | os.PathLike, needed: tuple[str, ...]) -> dict[str, np.ndarray]:
    data = read_csv(path)
    missing = [c for c in needed if c not in data]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; an fxrod time-series CSV "
                         f"with {list(needed)} is needed")
    return data


def energy_dissipation_figure(
    elastic_csv: str | os.PathLike,
    viscous_csv: str | os.PathLike,
    out_png: str | os.PathLike,
    reference_csv: str | os.PathLike | None = None,
) -> Path:
    """Plot H(t) [J] with and without dissipation, and the dissipated energy [J].

    Parameters
    ----------
    elastic_csv, viscous_csv : path-like
        fxrod time-series CSVs (columns ``t`` [s], ``H`` [J], ``dissipated`` [J]) of the
        elastic and the viscoelastic run, e.g. the case ``cantilever-vibration`` with and
        without ``--viscoelastic``.
    out_png : path-like
        Output picture (PNG).
    reference_csv : path-like, optional
        The authors' ``ex02_cantilever_dissipative_results.csv`` (columns ``time``,
        ``total_energy``), drawn as markers.

    Returns
    -------
    Path
        The written picture.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    el = _load(elastic_csv, ("t", "H"))
    ve = _load(viscous_csv, _NEEDED)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 5.5), sharex=True)
    ax1.plot(el["t"], el["H"], label="H, elastic")
    ax1.plot(ve["t"], ve["H"], label="H, viscoelastic")
    ax1.plot(ve["t"], ve["H"] + ve["dissipated"], "--", lw=1,
             label="H + dissipated, viscoelastic")
    if reference_csv is not None:
        ref = _load(reference_csv, ("time", "total_energy"))
        every = max(1, ref["time"].size // 30)
        ax1.plot(ref["time"][::every], ref["total_energy"][::every], "k.", ms=4,
                 label="H, Kinon et al. (2026) data")
    ax1.set_ylabel("energy [J]")
    ax1.legend(fontsize=8, loc="best")
    ax1.grid(alpha=0.3)
    ax2.plot(ve["t"], ve["dissipated"], color="C3", label="dissipated energy")
    ax2.set_ylabel("dissipated [J]")
    ax2.set_xlabel("t [s]")
    ax2.legend(fontsize=8, loc="best")
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(out_png)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out

"""Boundary conditions: clamped ends (free ends need nothing, theory §1.6 / Remark 3.2).

A clamp fixes ``phi`` and the directors at their initial values (and so ``v = 0``); the six
orthonormality multipliers of the clamped node are removed from the system (theory §2.4 item 2)
by a homogeneous Dirichlet condition on them.
"""

from __future__ import annotations

from dataclasses import dataclass

from fxrod.errors import ParameterError


@dataclass(frozen=True)
class Clamp:
    """Clamp an end of the rod in its initial position and orientation.

    Parameters
    ----------
    end : {"0", "L"}
        ``"0"`` for s = 0 (default), ``"L"`` for s = L.
    """

    end: str = "0"

    def __post_init__(self) -> None:
        if self.end not in ("0", "L"):
            raise ParameterError("end", self.end, "'0' or 'L'")

"""Supports of a rod end (free ends need nothing, theory §1.6 / Remark 3.2).

A support fixes some of the nodal unknowns ``q = (phi, d1, d2, d3)`` of an end at their
reference values; a fixed director makes its orthonormality constraint ``g_aa`` trivial, so
that multiplier is removed too (theory §2.4 item 2):

* :class:`Clamp` -- position and orientation fixed (all twelve components; all six
  multipliers removed);
* :class:`Pin` -- position fixed, rotation free (a spherical joint to the ground);
* :class:`Hinge` -- position fixed, rotation only about the reference director ``axis``
  (that director is fixed; the other two turn about it).

Fixed supports do no work; a clamp moved along a prescribed motion does, and its work is
booked in the energy ledger. Reaction forces and moments are output by
:class:`fxrod.runs.probes.ReactionProbe`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fxrod.errors import ParameterError, check_int_min

#: Index of each director in q = (phi, d1, d2, d3).
DIRECTORS = {"d1": 1, "d2": 2, "d3": 3}


@dataclass(frozen=True)
class Support:
    """Base class of a support at ``end`` (``"0"``: s = 0, ``"L"``: s = L) of rod ``rod``
    (keyword; the index in a :class:`fxrod.core.structure.Structure`, default 0)."""

    end: str = "0"
    rod: int = field(default=0, kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.end, str) or self.end not in ("0", "L"):
            raise ParameterError("end", self.end, "'0' or 'L'")
        check_int_min("rod", self.rod, 0)

    @property
    def label(self) -> str:
        """Name used in CSV columns, e.g. ``clamp_0`` (``clamp_r1_L`` on rod 1)."""
        where = self.end if self.rod == 0 else f"r{self.rod}_{self.end}"
        return f"{type(self).__name__.lower()}_{where}"

    def fixed_q(self) -> tuple[int, ...]:
        """Fixed components of q (0..11)."""
        raise NotImplementedError

    def fixed_multipliers(self) -> tuple[int, ...]:
        """Removed orthonormality multipliers (indices into CONSTRAINT_PAIRS)."""
        return ()


@dataclass(frozen=True)
class Clamp(Support):
    """Clamp an end in its reference position and orientation, or move it along a
    prescribed motion (a robot moving the base of a soft arm).

    Parameters
    ----------
    end : {"0", "L"}
        ``"0"`` for s = 0 (default), ``"L"`` for s = L.
    motion : callable, optional
        ``t -> (position [m] (3,), R (3, 3))``: the pose of the end at time t [s] (columns
        of R: d1, d2, d3), equal to the reference pose at t = 0. The work the support does
        enters the energy ledger (``support_work``).
    """

    motion: Callable | None = None

    def fixed_q(self) -> tuple[int, ...]:
        return tuple(range(12))

    def fixed_multipliers(self) -> tuple[int, ...]:
        return tuple(range(6))


@dataclass(frozen=True)
class Pin(Support):
    """Fix the position of an end; its rotation is free (spherical support).

    Parameters
    ----------
    end : {"0", "L"}
        ``"0"`` for s = 0 (default), ``"L"`` for s = L.
    """

    def fixed_q(self) -> tuple[int, ...]:
        return (0, 1, 2)


@dataclass(frozen=True)
class Hinge(Support):
    """Fix the position of an end and let it rotate only about its reference director
    ``axis`` (a revolute support whose axis is ``d1``, ``d2`` or ``d3`` of the reference).

    Parameters
    ----------
    end : {"0", "L"}
        ``"0"`` for s = 0 (default), ``"L"`` for s = L.
    axis : {"d1", "d2", "d3"}
        The director that stays fixed (the hinge axis).
    """

    axis: str = "d1"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.axis, str) or self.axis not in DIRECTORS:
            raise ParameterError("axis", self.axis, "'d1', 'd2' or 'd3'")

    def fixed_q(self) -> tuple[int, ...]:
        k = DIRECTORS[self.axis]
        return (0, 1, 2, 3 * k, 3 * k + 1, 3 * k + 2)

    def fixed_multipliers(self) -> tuple[int, ...]:
        return (DIRECTORS[self.axis] - 1,)       # g_aa of the fixed director

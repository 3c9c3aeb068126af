"""Installed by scripts/bootstrap.sh into the venv's site-packages (with a .pth file that
imports it): the first import of dolfinx, petsc4py or slepc4py imports ``dolfinx_solver``
before it, as the wheel requires, so ``import dolfinx`` works before ``import fxrod``.
Costs nothing until then (one meta-path finder that removes itself)."""

import importlib
import sys

_FIRST = {"dolfinx", "petsc4py", "slepc4py", "basix", "ffcx"}


class _OrderFinder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in _FIRST:
            sys.meta_path.remove(_OrderFinder)
            importlib.import_module("dolfinx_solver")
        return None


sys.meta_path.insert(0, _OrderFinder)

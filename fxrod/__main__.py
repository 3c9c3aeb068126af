"""``python -m fxrod`` runs the command line (see :mod:`fxrod.cli`)."""

from fxrod.cli import command

command()

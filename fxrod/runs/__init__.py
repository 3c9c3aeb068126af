"""Runs: the time and load steppers, ready problems, :class:`fxrod.runs.simulation.Simulation` with
its probes, callbacks, controllers and checkpoints, and ensembles of rods stepped together."""

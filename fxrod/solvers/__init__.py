"""Solving: the solver settings, the linear backends with their capability flags (MUMPS, the chain
solver), the one Newton driver (SNES or the array loop), the exact elimination of joint
relations and the stepper protocol."""

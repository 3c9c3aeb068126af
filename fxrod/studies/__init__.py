"""Studies over ready problems: the case registry, parameter sweeps and modal output of registered
cases."""

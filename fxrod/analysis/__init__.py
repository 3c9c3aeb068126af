"""Analyses on a model and its forward run's backend: natural modes and linear buckling, the linear
port-Hamiltonian model, arc-length continuation, LQR design, discrete adjoints and optimisation
over them."""

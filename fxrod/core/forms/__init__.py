"""Weak-form terms of the midpoint step (42), one module per physics."""

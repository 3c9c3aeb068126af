"""Builders of ready problems: the paper's examples, frames and the soft arm."""

"""Benchmark generators: one subpackage or module per paper's method (see DESIGN.md)."""

"""Benchmark generators, one subpackage per paper's method; shared helpers in ``common``."""

"""Benchmark generators, one subpackage per paper's method."""

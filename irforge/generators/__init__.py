"""Benchmark generators: one subpackage per method; each calls LLMs only through the engine."""

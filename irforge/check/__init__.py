"""Checks of a benchmark folder: files, queries and method-specific rules."""

"""Each method's folder layout (the files it adds to a benchmark folder), one module per method.

They live in ``core`` so that every package that reads a method's files (check, eval,
annotation, export) names them without importing the generator that writes them.
"""

"""Generators: one package per paper's method, each turning inputs into benchmark records."""

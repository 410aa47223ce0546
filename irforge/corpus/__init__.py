"""Corpus construction (DisastIR 3.3, Appendix A): collect PDFs, extract, dedup documents,
chunk, dedup passages, write a BEIR corpus; plus candidate pooling (3.5).

Each stage is a resumable library call in :mod:`irforge.corpus.pipeline` (``build`` runs them
all) and a command under ``irforge corpus``; see docs/corpus.md. Nothing is imported here so
that the CLI starts fast.
"""

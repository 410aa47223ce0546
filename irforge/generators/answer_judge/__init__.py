"""An LLM judge for ``irforge check --judge-model``: does a query's relevant passage answer it
as a searcher would ask it? Tested on control items before any verdict counts."""

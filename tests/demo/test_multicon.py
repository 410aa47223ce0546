from __future__ import annotations

from irforge.data.sample import sample_docs
from irforge.demo import STAGES
from irforge.demo.multicon import DEMO_DOMAINS, DEMO_N
from irforge.generators.multicon.sentences import split_sentences


def test_demo_stage_is_registered():
    assert "multicon" in [name for name, _ in STAGES]


def test_each_demo_domain_has_sample_documents_long_enough_for_n():
    docs = sample_docs()
    for marker in DEMO_DOMAINS:
        chosen = [d for d in docs if marker in d.doc_id]
        assert chosen, marker
        assert all(len(split_sentences(d.text)) >= DEMO_N for d in chosen)

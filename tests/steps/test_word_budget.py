"""Length asks read from prompts and the output tokens they take."""

from __future__ import annotations

from irforge.steps.word_budget import asked_words, tokens_for_words, words_allowed


def test_each_kind_of_ask_gives_the_most_words_it_allows() -> None:
    assert words_allowed("50 to 150 words") == 150
    assert words_allowed("at least 150 words") == 225  # open-ended: half as much again
    assert words_allowed("fewer than 10 words") == 10
    assert words_allowed("at most 60 words") == 60
    assert words_allowed("about six words") == 8
    assert words_allowed("clear") is None


def test_asks_in_a_prompt_and_their_tokens() -> None:
    text = "Write a question of at least 150 words and a passage of at least 200 words."
    assert asked_words(text) == [("at least 150 words", 225), ("at least 200 words", 300)]
    # 525 words cannot fit the 334 tokens the schema alone gave such a step
    assert tokens_for_words([225, 300], fields=2) > 900
    assert tokens_for_words([0]) == 12

"""Validators of keywords, instructions, reversals, rewrites and hard negatives (no LLM)."""

from __future__ import annotations

import pytest

from irforge.core.errors import FormatError
from irforge.generators.instructions.dimensions import load_dimensions
from irforge.generators.instructions.steps import (
    check_document,
    check_hard_negative,
    check_instruction,
    check_keyword,
    check_reversal,
    check_rewrite,
    forum_speakers,
)


@pytest.fixture(scope="module")
def dims():
    return load_dimensions()


DOC = ("Progesterone helps with acne that occurs in the late thirties. Taking progesterone "
       "cream helps with this type of acne as well.")
OTHER = "Mint can help remove pore-clogging oil; mix fresh mint with yogurt and oatmeal."


def test_shipped_dimensions_have_the_paper_values(dims):
    assert set(dims) == {"audience", "keyword", "format", "language", "length", "source"}
    assert set(dims["audience"].values) == {"layman", "expert"}
    assert set(dims["length"].values) == {"sentence", "paragraph", "article"}
    assert set(dims["source"].values) == {"blog", "forum_post", "news_article"}
    assert dims["keyword"].extracted and not dims["keyword"].values
    # nothing in a text shows its audience or source: given documents are seeds, rewritten
    # into every value; a length is measured, so paragraphs are rewritten from
    assert dims["audience"].rewrite.seeded and set(dims["audience"].rewrite.targets) == {
        "expert", "layman"}
    assert dims["source"].rewrite.source is None and set(dims["source"].rewrite.targets) == {
        "news_article", "blog", "forum_post"}
    assert dims["length"].rewrite.source == "paragraph" and not dims["length"].rewrite.seeded


def test_user_yaml_adds_a_dimension_and_a_value(tmp_path, dims):
    extra = tmp_path / "dims.yaml"
    extra.write_text("dimensions:\n  audience:\n    values:\n      child:\n"
                     "        description: for children\n        terms: [child, kids]\n"
                     "  tone:\n    values:\n      formal: {terms: [formal]}\n"
                     "      casual: {terms: [casual, informal]}\n", encoding="utf-8")
    merged = load_dimensions(extra)
    assert set(merged["audience"].values) == {"layman", "expert", "child"}
    assert merged["tone"].value("casual").terms == ("casual", "informal")
    assert merged["audience"].value("layman").terms == dims["audience"].value("layman").terms


def test_bad_user_yaml_names_the_field(tmp_path):
    extra = tmp_path / "dims.yaml"
    extra.write_text("dimensions:\n  tone:\n    values:\n      formal: {terms: [formal]}\n",
                     encoding="utf-8")
    with pytest.raises(FormatError, match=r"dimensions\.tone\.values.*at least two values"):
        load_dimensions(extra)
    extra.write_text("dimensions:\n  length:\n    values:\n      sentence:\n"
                     "        bounds: {max_lines: 3}\n", encoding="utf-8")
    with pytest.raises(FormatError, match="max_lines"):
        load_dimensions(extra)


def test_a_rule_without_from_needs_two_target_values(tmp_path):
    """Without rewrite.from a given document is a seed rewritten into every rewrite.to value;
    one value cannot make a pair, so the file is refused naming the field."""
    extra = tmp_path / "dims.yaml"
    rule = ("dimensions:\n  tone:\n    values:\n      formal: {terms: [formal]}\n"
            "      casual: {terms: [casual, informal]}\n    rewrite:\n"
            "      to: %s\n      template: instructions.rewrite_audience\n")
    extra.write_text(rule % "[casual]", encoding="utf-8")
    with pytest.raises(FormatError, match=r"dimensions\.tone\.rewrite\.to") as error:
        load_dimensions(extra)
    assert "at least two" in str(error.value)
    extra.write_text(rule % "[casual, casual]", encoding="utf-8")  # one value, twice
    with pytest.raises(FormatError, match=r"dimensions\.tone\.rewrite\.to"):
        load_dimensions(extra)
    extra.write_text(rule % "[formal, casual]", encoding="utf-8")
    tone = load_dimensions(extra)["tone"]
    assert tone.rewrite.seeded and tone.rewrite.targets == ("formal", "casual")
    # with rewrite.from one target value is enough: the given document is the other one
    extra.write_text(rule.replace("    rewrite:\n", "    rewrite:\n      from: formal\n")
                     % "[casual]", encoding="utf-8")
    tone = load_dimensions(extra)["tone"]
    assert tone.rewrite.source == "formal" and not tone.rewrite.seeded


@pytest.mark.parametrize("keyword,reason", [
    ("and", "stop-word"),
    ("What", "stop-word"),
    ("chamomile", "does not occur in the document"),
    ("mint", "does not occur in the document"),
    ("acne", "also occurs in 1 other"),
    ("progesterone cream taken daily by adults", "words"),
])
def test_keyword_rejections(keyword, reason):
    other = OTHER + " It soothes acne."
    reasons = check_keyword(keyword, "What helps for acne?", DOC, [other])
    assert any(reason in r for r in reasons), reasons


def test_keyword_accepted_when_it_singles_out_the_document():
    assert check_keyword('"Progesterone"', "What helps for acne?", DOC, [OTHER]) == []
    assert check_keyword("Keyword: progesterone cream.", "What helps for acne?", DOC, [OTHER]) == []


def test_instruction_states_the_condition_in_two_sentences(dims):
    layman = dims["audience"].value("layman")
    good = ("How can I prevent heart disease? Please explain it in plain language without "
            "technical jargon.")
    assert check_instruction(good, "How to prevent heart disease", layman) == []
    one_sentence = "How can I prevent heart disease in plain language"
    assert any("1 sentence" in r for r in check_instruction(one_sentence, "prevent heart disease",
                                                              layman))
    negated = "How can I prevent heart disease? Please do not use plain language."
    assert any("negates" in r for r in check_instruction(negated, "prevent heart disease",
                                                           layman))
    off_topic = "What is the weather today? Explain it in plain language."
    assert any("core query" in r for r in check_instruction(off_topic, "prevent heart disease",
                                                              layman))


def test_reversal_must_differ_and_negate_the_same_condition(dims):
    chinese = dims["language"].value("chinese")
    instructed = "Tell me what diabetes is. Please use Chinese."
    assert check_reversal("What is diabetes? Please respond in a language other than Chinese.",
                          instructed, "What is diabetes?", chinese) == []
    assert check_reversal("What is diabetes? Please don't answer in Chinese.",
                          instructed, "What is diabetes?", chinese) == []
    same = check_reversal(instructed, instructed, "What is diabetes?", chinese)
    assert any("identical" in r for r in same)
    other_condition = check_reversal("What is diabetes? Please do not answer in English.",
                                     instructed, "What is diabetes?", chinese)
    assert any("does not negate the condition 'chinese'" in r for r in other_condition)
    no_negation = check_reversal("What is diabetes? Answer in Chinese please, briefly.",
                                 instructed, "What is diabetes?", chinese)
    assert any("does not negate" in r for r in no_negation)


def test_reversal_of_a_keyword_condition(dims):
    keyword = dims["keyword"].value("mint")
    text = "What helps for acne? Can you give me a reply that does not involve the term mint?"
    assert check_reversal(text, "What helps for acne? Focus on mint.", "What helps for acne?",
                          keyword) == []


def test_length_bounds_per_value(dims):
    length = dims["length"]
    sentence = "A dry martini has about 140 calories."
    assert check_document(sentence, length.value("sentence")) == []
    two = sentence + " Vodka adds more."
    assert any("sentences, above the maximum 1" in r
               for r in check_document(two, length.value("sentence")))
    paragraph = " ".join(["The calorie count of a martini depends on its proportions."] * 5)
    assert check_document(paragraph, length.value("paragraph")) == []
    assert any("paragraphs, below the minimum 2" in r or "words, below" in r
               for r in check_document(paragraph, length.value("article")))
    article = "\n\n".join([" ".join(["Martini calories vary with the vodka used."] * 8)] * 3)
    assert check_document(article, length.value("article")) == []


def test_forum_needs_several_real_user_names(dims):
    forum = dims["source"].value("forum_post")
    text = ("superMario_Milt: I enjoy long walks for weight loss.\n"
            "Proudscobi: Lifting works better for body composition.\n"
            "kelp-gardener (reply): Walking after lifting is fine.")
    assert forum_speakers(text) == {"superMario_Milt", "Proudscobi", "kelp-gardener"}
    assert check_document(text, forum, ["Proudscobi", "someone_else"]) == []
    assert any("none of the user names" in r for r in check_document(text, forum, ["zed_q"]))
    generic = "user1: walking helps.\nuser2: lifting helps.\nUser 3: both help."
    reasons = check_document(generic, forum)
    assert any("generic user names" in r for r in reasons)


def test_format_markers_for_blog_manual_and_code(dims):
    blog = dims["source"].value("blog")
    good = ("Why Morning Walks Beat the Gym\nBy Dana Okafor | May 6, 2024 | Blog | Fitness\n\n"
            "Walking is a low-impact exercise.")
    assert check_document(good, blog) == []
    reasons = check_document("Walking is a low-impact exercise for weight loss.", blog)
    assert len(reasons) == 3
    manual = dims["format"].value("official_manual")
    assert check_document("os.environ\n\nNote: keys are strings.", manual) == []
    assert check_document("Environment variables are read with os.environ.", manual)
    code = dims["format"].value("code_snippet")
    assert check_document("import os\nprint(os.environ['HOME'])", code) == []
    assert check_document("Use the environ mapping of the os module.", code)


def test_language_markers(dims):
    chinese = dims["language"].value("chinese")
    assert check_document("糖尿病是一种代谢性疾病，患者的血糖长期高于标准值。", chinese) == []
    assert check_document("Diabetes is a chronic disease.", chinese)


def test_rewrite_keeps_topic_and_differs(dims):
    layman = dims["audience"].value("layman")
    source = "Glucagon down-regulates lipogenic enzymes and cholesterol synthesis in the liver."
    assert check_rewrite("Glucagon is a hormone that tells the liver to make less cholesterol.",
                         source, layman) == []
    assert any("identical" in r for r in check_rewrite(source, source, layman))
    assert any("topic lost" in r for r in check_rewrite("Cats sleep a lot.", source, layman))
    title_only = check_rewrite("Glucagon and cholesterol", source, layman)
    assert any("the rewrite drops content" in r for r in title_only)


def test_hard_negative_checks():
    query = "How many calories are in a martini?"
    positive = "A dry martini has about 140 calories per glass."
    good = ("The martini glass was designed in the 1920s; its conical bowl keeps the drink "
            "cold while the long stem stops the hand from warming it up.")
    assert check_hard_negative(good, query, [positive]) == []
    assert any("word overlap" in r for r in check_hard_negative(
        positive + " " + positive + " It is cold.", query, [positive], min_words=5))
    assert any("no content word" in r for r in check_hard_negative(
        "Penguins live in the southern hemisphere and eat fish and krill all year long in "
        "cold water.", query, [positive]))


# a long persona request (a length attribute asked for 150 words or more), ~190 words
_PERSONA = " ".join((
    "I am a retired teacher living alone in a small village, and last winter my doctor told "
    "me that my blood pressure had crept up over the years without my noticing it at all.",
    "My father had a heart attack in his early sixties, and my older brother has taken pills "
    "for his heart since he turned fifty, so I worry that the same thing will happen to me.",
    "I walk my dog every morning for about half an hour and I grow my own vegetables, but I "
    "also love cheese, bread and a glass of wine with dinner most evenings of the week.",
    "The leaflets at the surgery use words I do not understand, and the websites I have found "
    "either try to sell me supplements or frighten me with long lists of symptoms.",
    "My daughter wants me to join a gym in town, which is a long bus ride away.",
    "What changes to my daily habits would do the most to prevent heart disease for someone "
    "like me, and how soon would they make a difference to my blood pressure readings?"))


def test_an_instructed_long_persona_core_is_bounded_by_its_own_length(dims):
    from irforge.prompts.forms import query_form, word_count

    layman = dims["audience"].value("layman")
    budget = query_form("instructed").instruction_words
    assert word_count(_PERSONA) > 150 and budget
    instruction = "Please explain it in plain language without technical jargon."
    assert check_instruction(f"{_PERSONA} {instruction}", _PERSONA, layman) == []
    reversed_ = f"{_PERSONA} I want documents that are not in plain language."
    assert check_reversal(reversed_, f"{_PERSONA} {instruction}", _PERSONA, layman) == []
    # padded past the core's words plus the instruction's budget: rejected, naming both
    padding = " ".join(["really"] * budget)
    padded = f"{_PERSONA} Please explain it in {padding} plain language without jargon."
    [reason] = check_instruction(padded, _PERSONA, layman)
    assert f"its core query's {word_count(_PERSONA)} words and at most {budget}" in reason
    # a short core keeps a short bound: the same padding is rejected after it too
    short = "How to prevent heart disease?"
    assert check_instruction(f"{short} Please explain it in {padding} plain language.",
                             short, layman)


def test_an_instruction_or_reversal_that_only_permits_is_rejected(dims):
    expert = dims["audience"].value("expert")
    core = "How do I back up files before installing Debian?"
    permits = f"{core} Stuff written for experts is fine by me."
    assert any("only permits" in r for r in check_instruction(permits, core, expert))
    assert check_instruction(f"{core} I only want documents written for experts.", core,
                             expert) == []
    instructed = f"{core} I only want documents written for experts."
    reversal = f"{core} Stuff that is not written for experts is fine."
    assert any("only permits" in r for r in check_reversal(reversal, instructed, core, expert))

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from irforge.core.errors import FormatError
from irforge.prompts import (
    TemplateVariableError,
    UnknownTemplateError,
    get_template,
    list_templates,
)

GOOD = """\
paper: "test section 1"
description: a test template
variables: [question]
system: You answer questions.
user: "Question: {{ question }}"
example:
  question: why?
"""


def write(folder: Path, relative: str, text: str) -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_every_shipped_template_loads_and_renders_its_example() -> None:
    templates = list_templates()
    assert {"llm.try", "demo.keywords"} <= {t.name for t in templates}
    for template in templates:
        messages = template.render_example()
        assert messages[-1]["role"] == "user" and messages[-1]["content"]
        assert template.hash == hashlib.sha256(template.path.read_bytes()).hexdigest()
        assert template.paper


def test_render_fills_declared_variables() -> None:
    messages = get_template("llm.try").render(prompt="Say hi")
    assert messages == [
        {"role": "system",
         "content": "You are a helpful assistant. Answer briefly and accurately."},
        {"role": "user", "content": "Say hi"},
    ]


def test_missing_and_unexpected_variables_are_named() -> None:
    template = get_template("demo.keywords")
    with pytest.raises(TemplateVariableError, match=r"missing \['text'\]"):
        template.render(title="t")
    with pytest.raises(TemplateVariableError, match=r"unexpected \['other'\]"):
        template.render(title="t", text="x", other=1)


def test_strict_undefined_catches_missing_attributes(tmp_path: Path) -> None:
    write(tmp_path, "t/attr.yaml", GOOD.replace("{{ question }}", "{{ question.text }}"))
    template = get_template("t.attr", prompts_dir=tmp_path)
    with pytest.raises(TemplateVariableError, match=r"t\.attr"):
        template.render(question={"body": "no text key"})


def test_override_directory_takes_precedence(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = get_template("llm.try")
    override = write(tmp_path, "llm/try.yaml", GOOD.replace("[question]", "[prompt]")
                     .replace("{{ question }}", "{{ prompt }} (override)")
                     .replace("question: why?", "prompt: why?"))
    monkeypatch.setenv("IRFORGE_PROMPTS_DIR", str(tmp_path))
    template = get_template("llm.try")
    assert template.path == override
    assert template.hash != shipped.hash
    assert template.render(prompt="x")[-1]["content"] == "Question: x (override)"


def test_an_override_folder_edited_between_calls_is_seen(tmp_path: Path) -> None:
    with pytest.raises(UnknownTemplateError, match=r"t\.late"):
        get_template("t.late", prompts_dir=tmp_path)
    path = write(tmp_path, "t/late.yaml", GOOD)  # added after the first lookup
    assert get_template("t.late", prompts_dir=tmp_path).render(question="a")[-1]["content"] \
        == "Question: a"
    path.write_text(GOOD.replace("Question:", "Asked:"), encoding="utf-8")  # edited
    assert get_template("t.late", prompts_dir=tmp_path).render(question="a")[-1]["content"] \
        == "Asked: a"
    path.unlink()  # removed: the shipped set has no such template
    with pytest.raises(UnknownTemplateError, match=r"t\.late"):
        get_template("t.late", prompts_dir=tmp_path)


def test_an_override_file_with_a_dot_in_its_name_is_found_by_its_id(tmp_path: Path) -> None:
    path = write(tmp_path, "t/two.part.yaml", GOOD)
    assert get_template("t.two.part", prompts_dir=tmp_path).path == path


def test_undeclared_variable_in_file_is_reported_with_file_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, "t/bad.yaml", GOOD.replace("{{ question }}", "{{ questoin }}"))
    with pytest.raises(FormatError) as info:
        get_template("t.bad", prompts_dir=tmp_path)
    assert info.value.problem.path == path
    assert info.value.problem.field == "user"
    assert "questoin" in str(info.value)


def test_missing_key_and_bad_yaml_are_reported(tmp_path: Path) -> None:
    write(tmp_path, "t/nokey.yaml", GOOD.replace('paper: "test section 1"\n', ""))
    with pytest.raises(FormatError, match="field 'paper'"):
        get_template("t.nokey", prompts_dir=tmp_path)
    write(tmp_path, "t/broken.yaml", "paper: [unclosed\n")
    with pytest.raises(FormatError, match="not valid YAML"):
        get_template("t.broken", prompts_dir=tmp_path)


def test_unknown_template_lists_known_ones() -> None:
    with pytest.raises(UnknownTemplateError, match=r"llm\.try"):
        get_template("nope.missing")


def test_plain_placeholders_render_exactly_as_jinja_does() -> None:
    """Texts with only ``{{ name }}`` skip Jinja; the output must not change."""
    import jinja2

    from irforge.prompts import list_templates
    from irforge.prompts.registry import _compiled, _Substitution

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    values = {"x": "a < b & {{ not markup }}\n  ", "n": 3, "none": None}
    for source in ("Q: {{ x }}\nN={{n}} {{ none }}.\n", "{{x}}{{x}}", "plain", "{{ x }}\n\n"):
        assert isinstance(_compiled(source), _Substitution)
        assert _compiled(source).render(**values).strip() == \
            env.from_string(source).render(**values).strip()
    assert not isinstance(_compiled("{% if x %}{{ x }}{% endif %}"), _Substitution)
    assert not isinstance(_compiled("{{ x | upper }}"), _Substitution)
    fast = 0
    for template in list_templates():
        for source in (template.system, template.user):
            if source and isinstance(_compiled(source), _Substitution):
                fast += 1
                example = {name: f"<{name}>" for name in template.variables}
                assert _compiled(source).render(**example).strip() == \
                    env.from_string(source).render(**example).strip(), template.name
    assert fast > 0

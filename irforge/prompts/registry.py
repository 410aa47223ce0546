"""Prompt templates as YAML files: load, check, hash, render, with a user override directory.

A template file lives at ``templates/<group>/<name>.yaml`` and its id is ``<group>.<name>``.
Files in the override directory (``IRFORGE_PROMPTS_DIR`` or ``--prompts-dir``) with the same
relative path replace the shipped ones, so a user can tune a prompt without forking irforge.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from irforge.core.errors import FormatError, IrforgeError, Problem

TEMPLATES_DIR = Path(__file__).parent / "templates"
OVERRIDE_ENV = "IRFORGE_PROMPTS_DIR"
REQUIRED_KEYS = ("paper", "description", "variables", "user")
OPTIONAL_KEYS = ("system", "example")
Message = dict[str, str]


class UnknownTemplateError(IrforgeError, KeyError):
    """No template with that id exists in the shipped set or the override directory."""

    def __str__(self) -> str:
        return str(self.args[0])


class TemplateVariableError(IrforgeError, ValueError):
    """Rendering was called with missing or unexpected variables."""


#: variables a template may declare and a caller may leave out: the passage's document
#: context (title and section lines, prompts/context.py); none means no such lines
OPTIONAL: Mapping[str, Any] = {"context": ""}


@dataclass(frozen=True)
class Template:
    """One prompt template: its id, where it came from, its sha256, variables and text."""

    name: str
    path: Path
    hash: str
    paper: str
    description: str
    variables: tuple[str, ...]
    user: str
    system: str | None = None
    example: Mapping[str, Any] = field(default_factory=dict)

    def render(self, **variables: Any) -> list[Message]:
        """Fill the template; every declared variable is required and no other is accepted,
        except the optional ones (:data:`OPTIONAL`): empty when not given, dropped when the
        template (a user's override) does not declare them."""
        variables = {**{name: default for name, default in OPTIONAL.items()
                        if name in self.variables},
                     **{name: value for name, value in variables.items()
                        if name in self.variables or name not in OPTIONAL}}
        missing = [name for name in self.variables if name not in variables]
        extra = sorted(set(variables) - set(self.variables))
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"unexpected {extra}")
            raise TemplateVariableError(
                f"template {self.name!r} ({self.path}): {' and '.join(parts)}; "
                f"it declares variables {list(self.variables)}")
        messages: list[Message] = []
        if self.system:
            messages.append({"role": "system", "content": _render_text(self, "system", variables)})
        messages.append({"role": "user", "content": _render_text(self, "user", variables)})
        return messages

    def render_example(self) -> list[Message]:
        """Render with the example inputs stored in the file (what ``prompts show`` prints)."""
        return self.render(**dict(self.example))


def _render_text(template: Template, key: str, variables: Mapping[str, Any]) -> str:
    import jinja2

    source = template.system if key == "system" else template.user
    if not any(marker in (source or "") for marker in ("{{", "{%", "{#")):
        return (source or "").strip()  # plain text: nothing to render
    try:
        return _compiled(source or "").render(**variables).strip()
    except KeyError:  # a plain substitution met an unknown name: let Jinja say which
        return _jinja_env().from_string(source or "").render(**variables).strip()
    except jinja2.UndefinedError as exc:
        raise TemplateVariableError(
            f"template {template.name!r} ({template.path}) field {key!r}: {exc.message}; "
            "use only declared variables") from exc


@lru_cache(maxsize=1)
def _jinja_env():
    import jinja2

    return jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                              keep_trailing_newline=False)


_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class _Substitution:
    """A text whose only markup is ``{{ name }}``: filled by joining strings, the output
    Jinja gives (``str`` of each value, no escaping), at a fraction of its cost."""

    def __init__(self, source: str) -> None:
        self.parts = _PLACEHOLDER.split(source)  # text, name, text, name, ..., text

    def render(self, **variables: Any) -> str:
        parts = self.parts
        out = [parts[0]]
        for index in range(1, len(parts), 2):
            out.append(str(variables[parts[index]]))
            out.append(parts[index + 1])
        return "".join(out)


@lru_cache(maxsize=512)
def _compiled(source: str):
    """Compile each template text once (compiling costs far more than rendering); texts
    with nothing but ``{{ name }}`` placeholders skip Jinja at render time."""
    rest = _PLACEHOLDER.sub("", source)
    if "\r" not in source and not any(mark in rest for mark in ("{{", "{%", "{#", "}}")):
        return _Substitution(source)
    return _jinja_env().from_string(source)


def load_template_file(path: Path, name: str) -> Template:
    """Parse and check one template file; problems name the file and the field to fix."""
    import jinja2
    import yaml

    raw = path.read_bytes()
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise FormatError(Problem(path, f"not valid YAML: {exc}",
                                  line=None if line is None else line + 1,
                                  hint="fix the YAML syntax")) from exc
    if not isinstance(data, dict):
        raise FormatError(Problem(path, "a template must be a YAML mapping",
                                  hint=f"give the keys {', '.join(REQUIRED_KEYS)}"))
    for key in REQUIRED_KEYS:
        if key not in data:
            raise FormatError(Problem(path, "required key is missing", field=key,
                                      hint=f"a template has the keys {', '.join(REQUIRED_KEYS)}"))
    unknown = sorted(set(data) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise FormatError(Problem(path, f"unknown key(s) {unknown}", field=unknown[0],
                                  hint=f"allowed: {', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)}"))
    variables = data["variables"] or []
    if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
        raise FormatError(Problem(path, "must be a list of variable names", field="variables"))
    example = data.get("example") or {}
    if not isinstance(example, dict):
        raise FormatError(Problem(path, "must be a mapping of example inputs", field="example"))
    for key in ("user", "system"):
        text = data.get(key)
        if text is None:
            continue
        if not isinstance(text, str):
            raise FormatError(Problem(path, "must be text", field=key))
        try:
            parsed = _jinja_env().parse(text)
        except jinja2.TemplateSyntaxError as exc:
            raise FormatError(Problem(path, f"Jinja2 syntax error: {exc.message}", field=key,
                                      hint=f"line {exc.lineno} of the {key} text")) from exc
        from jinja2 import meta

        undeclared = sorted(meta.find_undeclared_variables(parsed) - set(variables))
        if undeclared:
            raise FormatError(Problem(path, f"uses undeclared variable(s) {undeclared}", field=key,
                                      hint="add them to 'variables' or remove them"))
    return Template(name=name, path=path, hash=hashlib.sha256(raw).hexdigest(),
                    paper=str(data["paper"]), description=str(data["description"]),
                    variables=tuple(variables), user=data["user"], system=data.get("system"),
                    example=example)


def _index(folder: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*.yaml")):
        relative = path.relative_to(folder).with_suffix("")
        found[".".join(relative.parts)] = path
    return found


@lru_cache(maxsize=1)
def _shipped_index() -> dict[str, Path]:
    """The templates shipped inside the package: read once (an override folder is read on
    every call, so a user's edits take effect without a restart)."""
    return _index(TEMPLATES_DIR)


def folder_template_names(folder: Path | str) -> list[str]:
    """The template ids a prompt folder holds (``<group>.<name>`` per YAML file)."""
    return sorted(_index(Path(folder)))


def override_dir(prompts_dir: Path | str | None = None) -> Path | None:
    """The user override directory: the argument, else ``IRFORGE_PROMPTS_DIR``, else none."""
    chosen = prompts_dir if prompts_dir is not None else os.environ.get(OVERRIDE_ENV)
    if not chosen:
        return None
    folder = Path(chosen)
    if not folder.is_dir():
        raise IrforgeError(f"prompt override directory {folder} does not exist "
                           f"(set {OVERRIDE_ENV} or --prompts-dir to an existing folder)")
    return folder


def template_paths(prompts_dir: Path | str | None = None) -> dict[str, Path]:
    """Every template id and the file it loads from, overrides taking precedence."""
    paths = dict(_shipped_index())
    folder = override_dir(prompts_dir)
    if folder is not None:
        paths.update(_index(folder))
    return dict(sorted(paths.items()))


def list_templates(prompts_dir: Path | str | None = None) -> list[Template]:
    """All templates, loaded and checked, sorted by id."""
    return [get_template(name, prompts_dir) for name in template_paths(prompts_dir)]


def get_template(name: str, prompts_dir: Path | str | None = None) -> Template:
    """The template with id ``name`` (``<group>.<name>``), from the override dir if it has it.

    Looked up by name (the override's ``<group>/<name>.yaml``, then the shipped index); the
    override folder is scanned only when that file is not there, and a file is parsed again
    whenever its size or modification time changed, so edits show on the next call."""
    folder = override_dir(prompts_dir)
    path = _override_file(folder, name) if folder is not None else None
    if path is None:
        paths = template_paths(prompts_dir) if folder is not None else _shipped_index()
        if name not in paths:
            known = ", ".join(sorted(paths)) or "none"
            raise UnknownTemplateError(f"no prompt template named {name!r}; known: {known}")
        path = paths[name]
    stat = path.stat()
    return _load_cached(str(path), name, stat.st_mtime_ns, stat.st_size)


def _override_file(folder: Path, name: str) -> Path | None:
    """``folder``'s ``<group>/<name>.yaml`` for id ``name``, if that file exists."""
    parts = name.split(".")
    if any(not part or "/" in part or "\\" in part for part in parts):
        return None  # not a plain id: left to the scan (which finds no such file)
    path = folder.joinpath(*parts[:-1], f"{parts[-1]}.yaml")
    return path if path.is_file() else None


@lru_cache(maxsize=256)
def _load_cached(path: str, name: str, mtime_ns: int, size: int) -> Template:
    return load_template_file(Path(path), name)

"""Prompt templates: YAML files with declared variables, a content hash and an override dir."""

from __future__ import annotations

from irforge.prompts.registry import (
    Template,
    TemplateVariableError,
    UnknownTemplateError,
    get_template,
    list_templates,
    template_paths,
)

__all__ = [
    "Template",
    "TemplateVariableError",
    "UnknownTemplateError",
    "get_template",
    "list_templates",
    "template_paths",
]

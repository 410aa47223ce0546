"""The logical demonstrations with every name changed, for tests whose model must answer
with a well-formed query that is not the prompt's own demonstration."""

from __future__ import annotations

import json

from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.steps import demo_variables

# the demonstrations with every name changed: a model answer that repeats a prompt's
# demonstration word for word is rejected by the echo validator (tests/check/test_echo.py)
RENAMES = {"Which actor starred in a film": "Who acted in a film",
           "Lena Ortiz": "Nadia Okafor", "Port Elam": "Harwick", "Quiet Harbor": "Copper Lake",
           "Salt Roads": "Winter Docks", "Tomas Reyes": "Ivo Lenz", "Ada Kim": "Rosa Tamm",
           "Golden Reed": "Silver Gull", "Dunmore": "Bexley", "June Park": "Mei Lund",
           "Marco Bell": "Otto Crane", "Iron Meadow": "Glass Fen",
           "Lantern Theatre": "Beacon Hall", "Arden Bridge": "Keel Bridge",
           "Clara Voss": "Ines Maro", "Voss": "Maro",
           "Hollis Institute": "Garrow Institute", "Vell Orchard": "Brack Orchard",
           "Redmere": "Corwen", "Ashcot": "Delby", "Linnet": "Farrow"}


def _renamed(text: str) -> str:
    for old, new in RENAMES.items():
        text = text.replace(old, new)
    return text


def _renamed_answers() -> dict:
    return {"logical.query": lambda item: renamed_output(item["type_name"])}


def renamed_output(type_name: str) -> dict:
    """The ``type_name`` demonstration's answer with every name changed, as a capable model
    is shown it (a negation type's names what its negation rules out; the small profile's
    output model ignores that key)."""
    example = demo_variables(type_name, DEMONSTRATIONS[type_name], open_fields=True)
    return json.loads(_renamed(example["demo_output"]))

"""YAML the user writes (recipes, domains, guidelines), read safely and strictly: a key given
twice in one mapping is an error naming its line, never silently the last value."""

from __future__ import annotations

from typing import Any


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` that refuses a duplicated key (``yaml.YAMLError`` with the line)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def mapping(loader: StrictLoader, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None,
                    f"the key {key!r} is given twice (lines {seen[key]} and {line}); keep one",
                    key_node.start_mark)
            seen[key] = line
        return loader.construct_mapping(node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(text, Loader=StrictLoader)

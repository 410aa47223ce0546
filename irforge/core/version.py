"""The installed irforge version (one place; the package root re-exports it)."""

__version__ = "0.1.0"

"""Scripted OpenAI-compatible servers for tests (shipped: users test against them too)."""

"""Recipes: one YAML file from documents to an evaluated benchmark (`irforge run`)."""

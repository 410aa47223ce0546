"""The command line: the typer app, shared options and console output."""

"""Subcommands beyond `info` (each registers itself here)."""
REGISTER = []

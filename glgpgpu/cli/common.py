"""Argument helpers shared by the subcommands."""
from __future__ import annotations


def sizes(text: str):
    """`--sizes 64,128` -> [64, 128], with a clear error for anything else."""
    try:
        return [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ValueError(f"--sizes takes comma-separated integers, got {text!r}") from None

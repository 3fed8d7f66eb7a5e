"""Argument helpers shared by the subcommands: types that check a value as it is
parsed (argparse then exits 2 with the message, before any work), the default output
folder, and the help formatter that shows every default."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

#: where results go unless --out says otherwise: a folder of its own in the current
#: directory, named in every "wrote" line (never a benchmarks/ folder of whatever cwd)
DEFAULT_OUT = "glgpgpu-results"

class Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every default shown once: "(default: ...)" added where the help text does not
    already say it, and not for None (an option whose default depends on others says so
    in its text)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default is None or "default" in text.lower():
            return text
        return super()._get_help_string(action)


def sizes(text: str):
    """`--sizes 64,128` -> [64, 128], `1-4,9` -> [1, 2, 3, 4, 9], with a clear error for anything else."""
    try:
        out = []
        for part in (s.strip() for s in text.split(",")):
            if "-" in part[1:]:
                lo, hi = (int(v) for v in part.split("-", 1))
                out.extend(range(lo, hi + 1))
            elif part:
                out.append(int(part))
            else:
                raise ValueError
    except ValueError:
        raise ValueError(f"--sizes takes comma-separated integers or ranges (1-64) with no empty entry, "
                         f"got {text!r}") from None
    if not out or any(v < 1 for v in out):
        raise ValueError(f"--sizes takes positive integers, got {text!r}")
    return out


def size_list(text: str) -> str:
    """An argparse type: comma-separated positive integers (kept as the text)."""
    try:
        sizes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def host_bytes() -> int:
    """The host memory this process may fill (physical memory; 0 where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def fits_host(need: int, what: str) -> None:
    """ValueError naming `what` when it needs more bytes than the host has (checked before any work)."""
    have = host_bytes()
    if have and need > have:
        raise ValueError(f"{what} needs {need / 2**30:.3g} GiB of host memory, this machine has "
                         f"{have / 2**30:.3g} GiB: choose smaller sizes")


def _positive(text: str, cast, noun: str):
    try:
        v = cast(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {noun}, got {text!r}") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a {noun}, got {v}")
    return v


def positive_int(text: str) -> int:
    return _positive(text, int, "positive integer")


def positive_float(text: str) -> float:
    return _positive(text, float, "positive finite number")


def tolerance(text: str) -> float:
    v = positive_float(text)
    if v >= 1:
        raise argparse.ArgumentTypeError(f"a tolerance lies in (0, 1), got {v}")
    return v


def existing_file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return text


def existing_dir(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"no such folder: {text}")
    return text


def run_stamp() -> str:
    """Date and time of day for output file names: a second run writes new files beside the
    first's instead of over them."""
    import time
    return time.strftime("%Y-%m-%d-%H%M%S")


def out_folder(text: str) -> str:
    """A folder the results can go to: an existing folder, or a path whose first existing
    ancestor is a writable folder (the rest is made) -- checked before any work starts."""
    path = Path(text).expanduser()
    if any(len(part.encode()) > 255 for part in path.parts):
        raise argparse.ArgumentTypeError(f"{text!r}: a name in it is longer than 255 bytes")
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} exists and is not a folder (pass a folder for the results)")
    probe = path
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {probe} is a file, so no folder can be made below it")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: {probe} is not writable")
    return text


def add_out(parser, what: str = "CSV and PNG files") -> None:
    parser.add_argument("--out", default=DEFAULT_OUT, type=out_folder,
                        help=f"folder for the {what} (made if missing)")

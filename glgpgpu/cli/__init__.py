"""The `glgpgpu` command: thin argument parsing over the library, one module per
subcommand (info, bench, wls, qr, sparseqr, lssvm, trace, demo, lp), each with `register(sub)` and `run(args)`."""
from __future__ import annotations

import argparse
import sys

from . import bench, demo, info, lp, lssvm, qr, sparseqr, trace, wls
from ..errors import GLUnavailableError, MissingExtraError

SUBCOMMANDS = (info, bench, wls, qr, sparseqr, lssvm, trace, demo, lp)


def build_parser() -> argparse.ArgumentParser:
    from importlib.metadata import PackageNotFoundError, version
    try:
        __version__ = version("glgpgpu")           # the one place: pyproject.toml
    except PackageNotFoundError:
        __version__ = "0+unknown"

    p = argparse.ArgumentParser(prog="glgpgpu", description="Dense linear algebra through the graphics pipeline.")
    p.add_argument("--version", action="version", version=f"glgpgpu {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for command in SUBCOMMANDS:
        command.register(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # piped into `head` and the reader left: no traceback, and no second error at exit
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MissingExtraError as exc:
        print(f"glgpgpu: {exc}", file=sys.stderr)
        return 2
    except GLUnavailableError as exc:
        print(f"glgpgpu: {exc}", file=sys.stderr)
        return 3
    except (ValueError, FileNotFoundError) as exc:
        print(f"glgpgpu: error: {exc}", file=sys.stderr)
        return 2

"""The `glgpgpu` command: thin argument parsing over the library."""
from __future__ import annotations

import argparse
import sys


def cmd_info(args) -> int:
    from .context import get_context

    ctx = get_context()
    c = ctx.caps
    rows = [("renderer", c.renderer), ("vendor", c.vendor), ("GL version", c.version),
            ("backend", c.backend),
            ("max texture size", c.max_texture_size),
            ("max viewport", "x".join(str(v) for v in c.max_viewport)),
            ("float32 render targets", "yes" if c.float_render_targets else "NO"),
            ("largest m (full / packed)", f"{c.max_texture_size} / {c.max_texture_size - 1}")]
    width = max(len(r[0]) for r in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="glgpgpu", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("info", help="renderer, GL version, texture limits: can this machine do it?")
    s.set_defaults(func=cmd_info)
    for register in _extra_commands():
        register(sub)
    return p


def _extra_commands():
    """Subcommands that live next to the code they drive."""
    from . import cli_more

    return cli_more.REGISTER


def main(argv=None) -> int:
    from .context import GLUnavailableError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except GLUnavailableError as exc:
        print(f"glgpgpu: {exc}", file=sys.stderr)
        return 3
    except (ValueError, FileNotFoundError) as exc:
        print(f"glgpgpu: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

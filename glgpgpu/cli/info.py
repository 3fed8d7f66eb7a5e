"""`glgpgpu info`: renderer, GL version, texture limits -- can this machine do it?"""
from __future__ import annotations


def run(args) -> int:
    from ..gl import get_context

    ctx = get_context()
    c = ctx.caps
    rows = [("renderer", c.renderer), ("vendor", c.vendor), ("GL version", c.version),
            ("backend", c.backend),
            ("max texture size", c.max_texture_size),
            ("max viewport", "x".join(str(v) for v in c.max_viewport)),
            ("float32 render targets", "yes" if c.float_render_targets else "NO"),
            ("largest m (full / packed)", f"{c.max_texture_size} / {c.max_texture_size - 1}"),
            ("transfers", "through mapped buffers (gl/staging.py)" if ctx.stager is not None else
             "direct (the driver's own copies; GLGPGPU_STAGING=1 forces mapped buffers)")]
    width = max(len(r[0]) for r in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


def register(sub):
    s = sub.add_parser("info", help="renderer, GL version, texture limits: can this machine do it?")
    s.set_defaults(func=run)

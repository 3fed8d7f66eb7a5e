"""`glgpgpu info`: renderer, GL version, texture limits -- can this machine do it?"""
from __future__ import annotations

from .common import Formatter


def run(args) -> int:
    from ..gl import get_context

    ctx = get_context()
    c = ctx.caps
    rows = [("renderer", c.renderer), ("vendor", c.vendor), ("GL version", c.version),
            ("backend", c.backend),
            ("max texture size", c.max_texture_size),
            ("max viewport", "x".join(str(v) for v in c.max_viewport)),
            ("float32 render targets", "yes" if c.float_render_targets else "NO"),
            ("one texture holds (full / packed)", f"m <= {c.max_texture_size} / {c.max_texture_size - 1}; larger "
                                                  "full matrices are stored as tiles (packed: one texture only)"),
            ("methods", "paper (GL 3.3)" + (", blocked (GL 4.3 image load/store)" if c.image_load_store else "")
             + (", compute (GL 4.3 compute shaders)" if c.compute_shaders else
                "; compute: not here (needs GL 4.3 compute shaders)")),
            ("transfers", "through mapped buffers (gl/staging.py)" if ctx.stager is not None else
             "direct (the driver's own copies; GLGPGPU_STAGING=1 forces mapped buffers)")]
    from ..gl import devices

    for index, renderer, version, memory in devices():
        rows.append((f"EGL device {index}" + (" (this context)" if index == ctx.device else ""),
                     f"{renderer}, {version}" + (f", {memory / 2 ** 30:.1f} GiB" if memory else "")))
    rows.append(("choosing a device", "glgpgpu.Context(device=i), or GLGPGPU_DEVICE=i for the default context"))
    width = max(len(r[0]) for r in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


def register(sub):
    s = sub.add_parser("info", help="renderer, GL version, texture limits: can this machine do it?",
                       formatter_class=Formatter)
    s.set_defaults(func=run)

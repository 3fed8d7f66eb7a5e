"""Drawing onto a window: a float texture as a heat map, with outlines on top.

The interactive demo (teach/window.py) decides *what* to show; this module is
the GL side of it (the `display` and `solid` programs of shaders/teach/).
"""
from __future__ import annotations

import numpy as np
import moderngl
from pyrr import matrix44

from .programs import VERTEX_FORMAT


class ScreenPainter:
    """Paints onto the default framebuffer of a window context."""

    def __init__(self, ctx, size):
        self.ctx, self.size = ctx, tuple(size)
        gl = ctx.gl
        K = ctx.kernels
        self.display = K.program("display").prog
        self.solid = K.program("solid").prog
        self.vbo = gl.buffer(reserve=64 * 1024)
        self.vao_display = gl.vertex_array(self.display, [(self.vbo,) + VERTEX_FORMAT], skip_errors=True)
        self.vao_solid = gl.vertex_array(self.solid, [(self.vbo,) + VERTEX_FORMAT], skip_errors=True)
        self.values = self.mask = None

    def _textures(self, w, h):
        if self.values is None or self.values.size != (w, h):
            for t in (self.values, self.mask):
                if t is not None:
                    t.release()
            self.values = self.ctx.gl.texture((w, h), 1, dtype="f4")
            self.mask = self.ctx.gl.texture((w, h), 1, dtype="f4")
            for t in (self.values, self.mask):
                t.filter = (moderngl.NEAREST, moderngl.NEAREST)

    def paint(self, image: np.ndarray, mask: np.ndarray, quad: np.ndarray, outlines, view, colour):
        """image, mask: (h, w) arrays (heat map, framed texels); quad: vertex table of
        the w x h rectangle; outlines: vertex tables drawn as closed line strips of 4;
        view: (x0, x1, y0, y1) of the world shown; colour: RGBA of the outlines."""
        gl = self.ctx.gl
        h, w = image.shape
        self._textures(w, h)
        self.values.write(np.ascontiguousarray(image, np.float32).tobytes())
        self.mask.write(np.ascontiguousarray(mask, np.float32).tobytes())
        x0, x1, y0, y1 = view
        proj = matrix44.create_orthogonal_projection(x0, x1, y1, y0, -1, 1, dtype=np.float32)
        gl.screen.use()
        gl.viewport = (0, 0) + self.size
        gl.clear(1.0, 1.0, 1.0)
        fin = image[np.isfinite(image)]
        self.vbo.write(np.ascontiguousarray(quad, np.float32).tobytes())
        self.display["u_proj"].write(proj.tobytes())
        self.display["u_lo"].value = float(fin.min()) if fin.size else 0.0
        self.display["u_hi"].value = float(fin.max()) if fin.size else 1.0
        self.display["values"].value = 0
        self.display["mask"].value = 1
        self.values.use(0)
        self.mask.use(1)
        self.vao_display.render(moderngl.TRIANGLES, vertices=len(quad))
        lines = np.ascontiguousarray(np.concatenate(outlines), np.float32)
        self.vbo.write(lines.tobytes())
        self.solid["u_proj"].write(proj.tobytes())
        self.solid["u_colour"].value = tuple(colour)
        for i in range(len(outlines)):
            self.vao_solid.render(moderngl.LINE_STRIP, vertices=4, first=4 * i)

    def read_rgb(self) -> bytes:
        """The window's pixels, RGB, bottom row first."""
        self.ctx.gl.finish()
        return self.ctx.gl.screen.read(components=3)

    def release(self):
        for o in (self.vao_display, self.vao_solid, self.vbo, self.values, self.mask):
            if o is not None:
                o.release()

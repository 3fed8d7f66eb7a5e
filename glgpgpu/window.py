"""`glgpgpu demo --window`: step through the passes of a run in a glfw window.

The window shows the target texture of the current pass as a heat map, the
texels that got a fragment framed in orange, and the triangle(s) drawn, in red.
Keys:  Right / Space  next pass      Left  previous pass
       P  full <-> packed            A  assembly <-> Cholesky
       + / -  change m               Q / Esc  quit
Headless machines get a clear message; `--screenshot file.png` renders one
frame, saves it and exits (used by the test under Xvfb).
"""
from __future__ import annotations

import numpy as np
import moderngl
from pyrr import matrix44

from . import geometry as geo
from . import runs
from .context import Context, GLUnavailableError


class DemoWindow:
    def __init__(self, algorithm="cholesky", m=6, packed=False, size=(800, 800)):
        self.ctx = Context("window", window_size=size, title="glgpgpu demo")
        self.size = size
        self.algorithm, self.m, self.packed, self.step = algorithm, m, packed, 0
        K = self.ctx.kernels
        self.display = K.program("display").prog
        self.solid = K.program("solid").prog
        self.vbo = self.ctx.gl.buffer(reserve=64 * 1024)
        self.vao_display = self.ctx.gl.vertex_array(self.display, [(self.vbo, "2f 3f 3f", "in_pos", "in_t0", "in_t1")],
                                                    skip_errors=True)
        self.vao_solid = self.ctx.gl.vertex_array(self.solid, [(self.vbo, "2f 3f 3f", "in_pos", "in_t0", "in_t1")],
                                                  skip_errors=True)
        self.values = self.mask = None
        self.record()

    def record(self):
        self.rec = runs.record(self.algorithm, self.m, packed=self.packed, snapshots=True, ctx=self.ctx)
        self.step = min(self.step, len(self.rec.draws) - 1)

    def _textures(self, w, h):
        if self.values is None or self.values.size != (w, h):
            for t in (self.values, self.mask):
                if t is not None:
                    t.release()
            self.values = self.ctx.gl.texture((w, h), 1, dtype="f4")
            self.mask = self.ctx.gl.texture((w, h), 1, dtype="f4")
            for t in (self.values, self.mask):
                t.filter = (moderngl.NEAREST, moderngl.NEAREST)

    def title(self) -> str:
        d = self.rec.draws[self.step]
        return (f"{self.algorithm} {'packed' if self.packed else 'full'} m={self.m}  pass {self.step + 1}/"
                f"{len(self.rec.draws)}: {d.kernel} -> {d.target}, {d.fragments} fragments  [{d.label}]")

    def render(self):
        gl = self.ctx.gl
        d = self.rec.draws[self.step]
        img = self.rec.images[self.step]
        w, h = d.size
        g = geo.Geometry(d.corners, d.triangles, d.label, d.names)
        count, _, _ = geo.rasterize(g, w, h)
        self._textures(w, h)
        self.values.write(np.ascontiguousarray(img, np.float32).tobytes())
        self.mask.write(count.astype(np.float32).tobytes())
        xs, ys = d.corners[:, 0], d.corners[:, 1]
        x0, x1 = min(-1.0, xs.min() - .5), max(w + 1.0, xs.max() + .5)
        y0, y1 = min(-1.0, ys.min() - .5), max(h + 1.0, ys.max() + .5)
        side = max(x1 - x0, y1 - y0)
        proj = matrix44.create_orthogonal_projection(x0, x0 + side, y0 + side, y0, -1, 1, dtype=np.float32)
        gl.screen.use()
        gl.viewport = (0, 0) + tuple(self.size)
        gl.clear(1.0, 1.0, 1.0)
        fin = img[np.isfinite(img)]
        quad = geo.rectangle(0, 0, w, h, t0=[(0, 0), (0, h), (w, h), (w, 0)]).vertices
        self.vbo.write(quad.tobytes())
        self.display["u_proj"].write(proj.tobytes())
        self.display["u_lo"].value = float(fin.min()) if fin.size else 0.0
        self.display["u_hi"].value = float(fin.max()) if fin.size else 1.0
        self.display["values"].value = 0
        self.display["mask"].value = 1
        self.values.use(0)
        self.mask.use(1)
        self.vao_display.render(moderngl.TRIANGLES, vertices=len(quad))
        lines = np.concatenate([d.corners[list(t) + [t[0]]] for t in d.triangles]).astype(np.float32)
        self.vbo.write(lines.tobytes())
        self.solid["u_proj"].write(proj.tobytes())
        self.solid["u_colour"].value = (0.85, 0.05, 0.05, 1.0)
        for i in range(len(d.triangles)):
            self.vao_solid.render(moderngl.LINE_STRIP, vertices=4, first=4 * i)

    def screenshot(self, path):
        from PIL import Image

        data = self.ctx.gl.screen.read(components=3)
        img = Image.frombytes("RGB", tuple(self.size), data).transpose(Image.FLIP_TOP_BOTTOM)
        img.save(path)

    def key(self, key):
        import glfw

        if key in (glfw.KEY_RIGHT, glfw.KEY_SPACE):
            self.step = min(self.step + 1, len(self.rec.draws) - 1)
        elif key == glfw.KEY_LEFT:
            self.step = max(self.step - 1, 0)
        elif key == glfw.KEY_P:
            self.packed = not self.packed
            self.record()
        elif key == glfw.KEY_A:
            self.algorithm = "assembly" if self.algorithm == "cholesky" else "cholesky"
            self.step = 0
            self.record()
        elif key in (glfw.KEY_EQUAL, glfw.KEY_KP_ADD):
            self.m = min(self.m + 1, 16)
            self.record()
        elif key in (glfw.KEY_MINUS, glfw.KEY_KP_SUBTRACT):
            self.m = max(self.m - 1, 1)
            self.record()
        elif key in (glfw.KEY_Q, glfw.KEY_ESCAPE):
            return False
        return True

    def loop(self):
        import glfw

        win = self.ctx.window
        running = [True]

        def on_key(_w, key, _sc, action, _mods):
            if action in (glfw.PRESS, glfw.REPEAT):
                running[0] = self.key(key)

        glfw.set_key_callback(win, on_key)
        while running[0] and not glfw.window_should_close(win):
            self.render()
            glfw.set_window_title(win, self.title())
            glfw.swap_buffers(win)
            glfw.wait_events()

    def close(self):
        for o in (self.vao_display, self.vao_solid, self.vbo, self.values, self.mask):
            if o is not None:
                o.release()
        self.ctx.release()


def run(algorithm="cholesky", m=6, packed=False, screenshot=None, step=0) -> int:
    try:
        win = DemoWindow(algorithm, m, packed)
    except GLUnavailableError as exc:
        print(f"glgpgpu demo --window: {exc}\nWithout a display, run `glgpgpu demo` (no --window): it writes the "
              "same passes as PNG pictures, GIFs and an index.html into demo_out/.")
        return 3
    try:
        win.step = max(0, min(step, len(win.rec.draws) - 1))
        if screenshot:
            win.render()
            win.ctx.gl.finish()
            win.screenshot(screenshot)
            print(f"{win.title()}\nwrote {screenshot}")
            return 0
        print(__doc__.split("\n", 1)[1])
        win.loop()
        return 0
    finally:
        win.close()

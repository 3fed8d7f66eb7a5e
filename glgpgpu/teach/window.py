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

from .. import figures as geo
from ..errors import GLUnavailableError
from ..gl.context import Context
from ..gl.screen import ScreenPainter
from . import runs


class DemoWindow:
    def __init__(self, algorithm="cholesky", m=6, packed=False, size=(800, 800)):
        self.ctx = Context("window", window_size=size, title="glgpgpu demo")
        self.size = size
        self.algorithm, self.m, self.packed, self.step = algorithm, m, packed, 0
        self.painter = ScreenPainter(self.ctx, size)
        self.record()

    def record(self):
        self.rec = runs.record(self.algorithm, self.m, packed=self.packed, snapshots=True, ctx=self.ctx)
        self.step = min(self.step, len(self.rec.draws) - 1)

    def title(self) -> str:
        d = self.rec.draws[self.step]
        return (f"{self.algorithm} {'packed' if self.packed else 'full'} m={self.m}  pass {self.step + 1}/"
                f"{len(self.rec.draws)}: {d.kernel} -> {d.target}, {d.fragments} fragments  [{d.label}]")

    def render(self):
        d = self.rec.draws[self.step]
        img = self.rec.images[self.step]
        w, h = d.size
        count, (x0, x1, y0, y1) = runs.coverage_and_view(d, .5)
        side = max(x1 - x0, y1 - y0)
        quad = geo.rectangle(0, 0, w, h, t0=[(0, 0), (0, h), (w, h), (w, 0)]).vertices
        outlines = [d.corners[list(t) + [t[0]]] for t in d.triangles]
        self.painter.paint(img, count.astype(np.float32), quad, outlines,
                           (x0, x0 + side, y0, y0 + side), (0.85, 0.05, 0.05, 1.0))

    def screenshot(self, path):
        from PIL import Image

        data = self.painter.read_rgb()
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
        self.painter.release()
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
            win.screenshot(screenshot)
            print(f"{win.title()}\nwrote {screenshot}")
            return 0
        print(__doc__.split("\n", 1)[1])
        win.loop()
        return 0
    finally:
        win.close()

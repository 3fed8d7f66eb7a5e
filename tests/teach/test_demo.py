"""The rasterization demo: pictures, GIFs, index page, and the window under Xvfb."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from glgpgpu.teach import demo


def test_demo_writes_pictures_gifs_and_index(ctx, tmp_path):
    index = demo.build(tmp_path, sizes=(2, 3), progress=False)
    html = index.read_text()
    for alg, packed in demo.CASES:
        for m in (2, 3):
            name = f"{alg}-{'packed' if packed else 'full'}-m{m}"
            assert (tmp_path / f"{name}.gif").stat().st_size > 1000
            assert (tmp_path / f"{name}-pass000.png").exists()
            assert f"id='{name}'" in html
    # build() itself raises if a GPU fragment count differs from the numpy rasterizer


def test_window_needs_a_display(monkeypatch, capsys):
    from glgpgpu.teach import window

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert window.run(screenshot="never.png") == 3
    out = capsys.readouterr().out
    assert "DISPLAY" in out and "glgpgpu demo" in out


def test_window_under_xvfb(tmp_path):
    # `make test` installs Xvfb where it can and stops with the install line where it cannot
    assert shutil.which("xvfb-run"), "Xvfb is not installed (Debian: apt-get install xvfb xauth)"
    shot = tmp_path / "window.png"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1024x900x24", sys.executable, "-m", "glgpgpu.cli",
                           "demo", "--window", "--screenshot", str(shot), "--step", "4", "--m", "6", "--packed"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Fig. 6(a)" in proc.stdout and "15 fragments" in proc.stdout
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert img.shape == (800, 800, 3)
    orange = (abs(img[..., 0] - 255) < 10) & (abs(img[..., 1] - 140) < 12) & (img[..., 2] < 20)
    red = (img[..., 0] > 180) & (img[..., 1] < 40) & (img[..., 2] < 40)
    assert orange.sum() > 2000, "no framed (covered) texels visible"
    assert red.sum() > 200, "the triangle outline is missing"
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10, "the heat map is missing"

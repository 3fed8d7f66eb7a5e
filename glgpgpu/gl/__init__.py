"""The GL engine: the only code that talks to moderngl.

context   headless EGL (or glfw window) context, capabilities, current-context rules
textures  float32 matrix textures, ping-pong pairs, the texture pool, grid targets
programs  shader files (shaders/), found by kernel name and compiled once
kernels   program cache per context and the one draw call; vertex stores; draw recorder
timing    stopwatch for phase breakdowns, GPU timer queries
screen    drawing a texture on a window (the interactive demo)
"""
from .context import Capabilities, Context, engine, get_context, resolve, set_context
from .textures import GridTarget, MatrixTexture, PingPong, TexturePool
from .timing import GPUTimer, Stopwatch

__all__ = ["Capabilities", "Context", "engine", "get_context", "resolve", "set_context",
           "GridTarget", "MatrixTexture", "PingPong", "TexturePool", "GPUTimer", "Stopwatch"]

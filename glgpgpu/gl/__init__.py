"""The GL engine: the only code that talks to moderngl.

context   headless EGL (or glfw window) context, capabilities, current-context rules; it
          builds the parts below side by side
textures  float32 matrix textures, ping-pong pairs, the texture pool, grid targets
buffers   storage-buffer matrices and their pool (the compute method's storage)
scopes    the pools' failure scope
programs  shader files (shaders/), found by kernel name, compiled once, declared by reflection
geometry  vertex stores of the figures' tables, the scratch buffer
kernels   the one draw call and the one compute dispatch; draw recorder, debug checks
transfer  matrices between numpy and textures in every layout; staging: mapped buffers
timing    stopwatch for phase breakdowns, GPU timer queries
screen    drawing a texture on a window (the interactive demo)
"""
from .context import Capabilities, Context, devices, engine, get_context, resolve, set_context
from .textures import GridTarget, MatrixTexture, PingPong, TexturePool
from .timing import GPUTimer, Stopwatch

__all__ = ["Capabilities", "Context", "devices", "engine", "get_context", "resolve", "set_context",
           "GridTarget", "MatrixTexture", "PingPong", "TexturePool", "GPUTimer", "Stopwatch"]

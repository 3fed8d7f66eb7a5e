"""The few GL entry points moderngl does not expose, called through the GL dispatch
library (libOpenGL / libGL, which forwards to the current context's driver):
glGetIntegerv for the memory-info extensions (memory.py) and glPixelStorei +
glTexSubImage2D for uploads of a sub-rectangle straight out of a larger array
(MatrixTexture.write_lower).  Looked up once: ctypes.util.find_library runs
ldconfig in a subprocess, milliseconds that every public call paid before."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

TEXTURE_2D, RED, FLOAT = 0x0DE1, 0x1903, 0x1406
UNPACK_ROW_LENGTH, UNPACK_ALIGNMENT = 0x0CF2, 0x0CF5


@functools.lru_cache(maxsize=None)
def function(name: str):
    """A GL function by name, or None where no dispatch library has it."""
    for lib in ("OpenGL", "GL"):
        path = ctypes.util.find_library(lib)
        if not path:
            continue
        try:
            return getattr(ctypes.CDLL(path), name)
        except (OSError, AttributeError):
            continue
    return None


def get_integers(pname: int, count: int):
    """glGetIntegerv (the context must be current), or None without a dispatch library."""
    fn = function("glGetIntegerv")
    if fn is None:
        return None
    out = (ctypes.c_int * count)()
    fn(ctypes.c_uint(pname), out)
    return list(out)


def has(*names: str) -> bool:
    """Does the dispatch library have all these entry points?"""
    return all(function(n) is not None for n in names)


def sub_image_rows(y: int, w: int, h: int, address: int, row_length: int) -> None:
    """glTexSubImage2D of a w x h block of one-component floats at (0, y), whose rows
    lie row_length floats apart in host memory from `address`, into the texture bound
    to GL_TEXTURE_2D of the active unit (callers check `has` first)."""
    store = function("glPixelStorei")
    store(UNPACK_ALIGNMENT, 4)
    store(UNPACK_ROW_LENGTH, row_length)
    try:
        function("glTexSubImage2D")(TEXTURE_2D, 0, 0, y, w, h, RED, FLOAT, ctypes.c_void_p(address))
    finally:
        store(UNPACK_ROW_LENGTH, 0)                  # moderngl's own uploads assume the default

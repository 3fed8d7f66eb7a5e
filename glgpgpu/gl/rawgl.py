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

TEXTURE_2D, RED, RGBA, FLOAT = 0x0DE1, 0x1903, 0x1908, 0x1406
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


def sub_image_rows(x: int, y: int, w: int, h: int, components: int, address: int, row_length: int) -> bool:
    """glTexSubImage2D of a w x h float block whose rows lie row_length texels apart in
    host memory from `address`, into the texture bound to GL_TEXTURE_2D of the active
    unit.  False (nothing done) where the entry points are missing."""
    store, sub = function("glPixelStorei"), function("glTexSubImage2D")
    if store is None or sub is None:
        return False
    store(UNPACK_ALIGNMENT, 4)
    store(UNPACK_ROW_LENGTH, row_length)
    try:
        sub(TEXTURE_2D, 0, x, y, w, h, RED if components == 1 else RGBA, FLOAT, ctypes.c_void_p(address))
    finally:
        store(UNPACK_ROW_LENGTH, 0)                  # moderngl's own uploads assume the default
    return True

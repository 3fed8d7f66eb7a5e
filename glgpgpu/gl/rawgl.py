"""The GL entry points moderngl does not expose, called through the GL dispatch
library (libOpenGL / libGL, which forwards to the current context's driver):
glGetIntegerv for the memory-info extensions (memory.py), glPixelStorei +
glTexSubImage2D for uploads of a sub-rectangle straight out of a larger array
(MatrixTexture.write_lower), and the buffer-storage, fence and direct-state
texture calls of the mapped-buffer transfers (staging.py).  Looked up once:
ctypes.util.find_library runs ldconfig in a subprocess, milliseconds that every
public call paid before.  Entry points that take pointers or 64-bit sizes get their
C signature here (ctypes would pass them as 32-bit ints)."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

TEXTURE_2D, RED, FLOAT = 0x0DE1, 0x1903, 0x1406
UNPACK_ROW_LENGTH, UNPACK_ALIGNMENT, PACK_ALIGNMENT = 0x0CF2, 0x0CF5, 0x0D05

_C = ctypes
SIGNATURES = {
    "glMapBufferRange": (_C.c_void_p, [_C.c_uint, _C.c_ssize_t, _C.c_ssize_t, _C.c_uint]),
    "glBufferStorage": (None, [_C.c_uint, _C.c_ssize_t, _C.c_void_p, _C.c_uint]),
    "glFenceSync": (_C.c_void_p, [_C.c_uint, _C.c_uint]),
    "glClientWaitSync": (_C.c_uint, [_C.c_void_p, _C.c_uint, _C.c_uint64]),
    "glDeleteSync": (None, [_C.c_void_p]),
    "glTextureSubImage2D": (None, [_C.c_uint] + [_C.c_int] * 5 + [_C.c_uint, _C.c_uint, _C.c_void_p]),
    "glGetTextureSubImage": (None, [_C.c_uint] + [_C.c_int] * 7 + [_C.c_uint, _C.c_uint, _C.c_int, _C.c_void_p]),
}


@functools.lru_cache(maxsize=None)
def function(name: str):
    """A GL function by name, or None where no dispatch library has it."""
    for lib in ("OpenGL", "GL"):
        path = ctypes.util.find_library(lib)
        if not path:
            continue
        try:
            fn = getattr(ctypes.CDLL(path), name)
        except (OSError, AttributeError):
            continue
        if name in SIGNATURES:
            fn.restype, fn.argtypes = SIGNATURES[name]
        return fn
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

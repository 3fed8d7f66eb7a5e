"""How much memory the GPU has free, asked before a large allocation),
so a request that cannot fit is refused with the sizes named, never a driver
crash or a silent wrong result.

Sources, in order: a budget set on the context (`ctx.memory_budget`, bytes: tests
and users who share the GPU), NVIDIA's GL_NVX_gpu_memory_info (current available
video memory), AMD's GL_ATI_meminfo (free texture memory), and for a software
renderer (llvmpipe: textures live in host memory) the host's MemAvailable.
Otherwise nothing is known and nothing is refused (documented, not guessed).
"""
from __future__ import annotations

from ..errors import GPUMemoryError, HostMemoryError
from . import rawgl

_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX = 0x9048
_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX = 0x9049
_TEXTURE_FREE_MEMORY_ATI = 0x87FC


def _host_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def available(ctx) -> tuple:
    """(bytes or None, where the number came from)."""
    budget = getattr(ctx, "memory_budget", None)
    if budget is not None:
        return int(budget), "the context's memory_budget"
    ctx.make_current()
    ext = getattr(ctx.gl, "extensions", set()) or set()
    free = _nvx(ctx, _GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX)
    if free is not None:
        return free, "GL_NVX_gpu_memory_info"
    if "GL_ATI_meminfo" in ext:
        v = rawgl.get_integers(_TEXTURE_FREE_MEMORY_ATI, 4)
        if v and v[0] > 0:
            return v[0] * 1024, "GL_ATI_meminfo"
    if ctx.caps.software:
        host = _host_available()
        if host:
            return host, "host MemAvailable (software renderer)"
    return None, "unknown (no memory-info extension)"


def total(ctx) -> int | None:
    """The GPU's memory in bytes where the driver says (GL_NVX_gpu_memory_info), else None."""
    ctx.make_current()
    return _nvx(ctx, _GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX)


def _nvx(ctx, pname: int) -> int | None:
    """One of GL_NVX_gpu_memory_info's numbers (KiB) in bytes, or None without it."""
    if "GL_NVX_gpu_memory_info" in (getattr(ctx.gl, "extensions", set()) or set()):
        v = rawgl.get_integers(pname, 1)
        if v and v[0] > 0:
            return v[0] * 1024
    return None


def pooled(ctx) -> int:
    """Bytes the context's pools keep for reuse (free textures and storage buffers): the
    driver counts them as used, yet they are the context's to give back.  (Another live
    context's pools on the same GPU are its thread's: they count as used here.)"""
    return sum(getattr(getattr(ctx, name, None), "held_bytes", 0) for name in ("pool", "buffers"))


def require(ctx, need: int, what: str) -> None:
    """Raise GPUMemoryError if `need` bytes will not fit in what is free -- after the
    context's pools gave back what they keep, where that would make the difference."""
    have, source = available(ctx)
    if have is not None and need > have and getattr(ctx, "memory_budget", None) is None and pooled(ctx):
        ctx.pool.trim()
        ctx.buffers.release()
        have, source = available(ctx)
    if have is not None and need > have:
        raise GPUMemoryError(
            f"{what} needs about {need / 2 ** 30:.2f} GiB of GPU memory but {have / 2 ** 30:.2f} GiB are "
            f"available ({source}); solve a smaller problem, free other GPU work, or raise ctx.memory_budget "
            "if the estimate is too cautious")


def buffer_fits(ctx, nbytes: int, live_bytes: int, what: str, new: bool = True) -> None:
    """The storage-buffer pool's check before a new buffer: with ctx.memory_budget set, the
    buffers in use plus this one stay within it; otherwise a large one (BufferPool.ASK_BYTES)
    must fit in what the driver says is free."""
    from .buffers import BufferPool

    if ctx.memory_budget is not None:
        if live_bytes + nbytes > ctx.memory_budget:
            raise GPUMemoryError(
                f"{what} needs a buffer of {nbytes / 2 ** 20:.3g} MiB beside {live_bytes / 2 ** 20:.3g} MiB in use, "
                f"past the context's memory_budget of {ctx.memory_budget / 2 ** 20:.3g} MiB; raise "
                "ctx.memory_budget or solve a smaller problem")
    elif new and nbytes >= BufferPool.ASK_BYTES:
        require(ctx, nbytes, what)


def require_host(need: int, what: str) -> None:
    """Raise HostMemoryError before any work if the host arrays of a call (`need` bytes:
    its result and temporaries) exceed the host's available memory (where it is known)."""
    have = _host_available()
    if have is not None and need > have:
        raise HostMemoryError(
            f"{what} needs about {need / 2 ** 30:.3g} GiB of host memory for its result and temporaries, "
            f"{have / 2 ** 30:.3g} GiB are available; solve a smaller problem (or in tiles of your own)")

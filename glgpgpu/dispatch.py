"""The method= rule, in one place: which implementation serves a call.

"paper"   the papers' kernels (glgpgpu.paper), any GPU with OpenGL 3.3;
"blocked" the register-blocked fast path (glgpgpu.blocked), OpenGL 4.3;
"compute" GL compute shaders (glgpgpu.compute), OpenGL 4.3 -- never chosen by "auto":
          this is a graphics-pipeline library, and the fragment paths are its subject;
"auto"    blocked where the GPU has image load/store and the call asks for
          nothing only the paper's kernels have (the packed format, unless the
          operation has a blocked packed form -- packed_ok --, the inner-product
          or triad Cholesky variants).
The public functions (api.py) and the solvers call `choose`, then the operation
of the object `implementation` returns: every implementation satisfies the
methods' contract (methods/contract.py), so a fourth method is one package and
one line in IMPLEMENTATIONS.
"""
from __future__ import annotations

from .blocked import BlockedMethod
from .compute import ComputeMethod
from .methods.contract import (CHOLESKY_VARIANTS, KERNELS, FrontSpec, FrontStore, Method,  # noqa: F401 -- the
                               NormalSystem)                           # contract's names, for api.py and the solvers
from .paper import PaperMethod

#: method name -> the object implementing the contract
IMPLEMENTATIONS: dict[str, Method] = {"paper": PaperMethod(), "blocked": BlockedMethod(),
                                      "compute": ComputeMethod()}
METHODS = ("auto", *IMPLEMENTATIONS)


def choose(method: str, ctx, *, packed: bool = False, variant: str = "outer",
           packed_ok: bool = False) -> str:
    """The implementation's name for a call (raises ValueError for a request no path serves)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    if method == "auto":
        fits = (packed_ok or not packed) and variant == "outer"
        return "blocked" if ctx.caps.image_load_store and fits else "paper"
    # what each method needs of the GPU; only the paper's kernels have the other forms
    needs = {"blocked": ("image_load_store", "OpenGL 4.3 (image load/store)", packed_ok),
             "compute": ("compute_shaders", "OpenGL 4.3 compute shaders", False)}.get(method)
    if needs is not None:
        cap, what, packed_form = needs
        if packed and not packed_form:
            raise ValueError(f"method={method!r} has no packed layout; use packed=False or method='paper'")
        if variant != "outer":
            raise ValueError(f"variant={variant!r} is a paper kernel; use method='paper'")
        if not getattr(ctx.caps, cap):
            raise RuntimeError(f"method={method!r} needs {what}; {ctx.caps.renderer} offers {ctx.caps.version}. "
                               "Use method='paper'.")
    return method


def implementation(name: str) -> Method:
    """The object implementing a chosen method (PaperMethod, BlockedMethod)."""
    try:
        return IMPLEMENTATIONS[name]
    except KeyError:
        raise ValueError(f"no implementation named {name!r}; choose() returns one of "
                         f"{tuple(IMPLEMENTATIONS)}") from None


def float64_kernels(ctx):
    """The float64 factorizations on the GPU -- the compute method's Cholesky and QR
    kernels compiled in double (GLSL 4.00's double; textures have no float64 format, so
    the fragment methods cannot hold them) -- as a namespace (cholesky, gram_cholesky: the
    factor of A D A^T formed on the GPU, qr_raw, apply_q, kernel_products: the LS-SVM's K Z),
    or None where the driver has no compute shaders (OpenGL 4.3)."""
    if not ctx.caps.compute_shaders:
        return None
    from types import SimpleNamespace

    from .compute.float64 import cholesky64, gram_cholesky64
    from .compute.kernel_products import KernelProducts
    from .compute.qr import apply_q64, qr_raw64
    return SimpleNamespace(cholesky=cholesky64, gram_cholesky=gram_cholesky64, qr_raw=qr_raw64, apply_q=apply_q64,
                           kernel_products=KernelProducts)

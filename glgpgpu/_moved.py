"""Old import paths (before the subpackages) keep working, with a DeprecationWarning
naming the new place; module names that are now public functions fail with an
ImportError that names both.

`import glgpgpu.geometry` gives a module that forwards every attribute to
glgpgpu.figures, and so on for the table below.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

MOVED = {
    "glgpgpu.geometry": "glgpgpu.figures",
    "glgpgpu.packed": "glgpgpu.layouts.triangle",
    "glgpgpu.triangle_io": "glgpgpu.layouts.transfer",
    "glgpgpu.context": "glgpgpu.gl.context",
    "glgpgpu.textures": "glgpgpu.gl.textures",
    "glgpgpu.kernels": "glgpgpu.gl.kernels",
    "glgpgpu.timing": "glgpgpu.gl.timing",
    "glgpgpu.assemble": "glgpgpu.paper.assemble",
    "glgpgpu.triangular": "glgpgpu.paper.triangular",
    "glgpgpu.lu": "glgpgpu.paper.lu",
    "glgpgpu.runs": "glgpgpu.teach.runs",
    "glgpgpu.demo": "glgpgpu.teach.demo",
    "glgpgpu.window": "glgpgpu.teach.window",
    "glgpgpu.counts": "glgpgpu.teach.counts",
    "glgpgpu.wls_tables": "glgpgpu.bench.wls_tables",
    "glgpgpu.cli_more": "glgpgpu.cli",
    "glgpgpu._checks": "glgpgpu.validate",
    "glgpgpu.lp": "glgpgpu.solvers.lp",
    "glgpgpu.lp.table3": "glgpgpu.bench.lp_table3",
}
#: Old modules whose name is now the public function of the same name.
SHADOWED = {"glgpgpu.cholesky": "glgpgpu.paper.cholesky", "glgpgpu.wls": "glgpgpu.solvers.wls"}


def new_name(old: str) -> str | None:
    """Where an old module lives now (None if it did not move)."""
    if old in MOVED:
        return MOVED[old]
    if old.startswith("glgpgpu.lp."):
        return "glgpgpu.solvers.lp." + old[len("glgpgpu.lp."):]
    return None


class _Forward(types.ModuleType):
    """A stand-in module: every attribute comes from the module's new home."""

    def __init__(self, name, target):
        super().__init__(name, f"moved to {target.__name__}")
        self.__dict__["_target"] = target
        if hasattr(target, "__path__"):
            self.__path__ = []          # lets `import old.package.sub` reach this finder

    def __getattr__(self, attr):
        return getattr(self.__dict__["_target"], attr)

    def __dir__(self):
        return dir(self.__dict__["_target"])


class _Loader(importlib.abc.Loader):
    def __init__(self, target_name):
        self.target_name = target_name

    def create_module(self, spec):
        return _Forward(spec.name, importlib.import_module(self.target_name))

    def exec_module(self, module):
        warnings.warn(f"{module.__name__} moved to {self.target_name}; import it from there",
                      DeprecationWarning, stacklevel=2)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in SHADOWED:
            raise ImportError(f"{fullname} is now the function {fullname}(); the module moved to "
                              f"{SHADOWED[fullname]}: import from there", name=fullname)
        new = new_name(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(new))


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())

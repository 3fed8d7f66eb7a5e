"""The methods' contract (glgpgpu/methods/contract.py): every implementation offers
every operation with the contract's parameters, and nothing more is needed to add
one than a package and a line in dispatch.IMPLEMENTATIONS."""
import importlib
import inspect
import pkgutil

import pytest

import glgpgpu
from glgpgpu.dispatch import IMPLEMENTATIONS, METHODS, implementation
from glgpgpu.methods.contract import OPERATIONS, Method


def _params(fn):
    """(name, kind) of each parameter but self: what a caller relies on."""
    return [(p.name, p.kind) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def test_the_contract_lists_the_operations():
    assert {"adat", "cholesky", "solve", "kernel_matrix", "qr_raw", "apply_q", "qr_batched", "normal_system",
            "normal_factor", "resident_normal", "kernel_factor", "qr_factor"} <= set(OPERATIONS)


@pytest.mark.parametrize("name", sorted(IMPLEMENTATIONS))
@pytest.mark.parametrize("op", OPERATIONS)
def test_every_method_offers_every_operation_with_the_contract_signature(name, op):
    impl = implementation(name)
    assert isinstance(impl, Method)
    assert impl.name == name
    assert callable(getattr(impl, op, None)), f"{type(impl).__name__} lacks {op}"
    assert _params(getattr(impl, op)) == _params(getattr(Method, op)), \
        f"{type(impl).__name__}.{op}{inspect.signature(getattr(impl, op))} drifted from the contract " \
        f"{inspect.signature(getattr(Method, op))}"


def test_the_check_finds_drift():
    """The signature test can fail: a method whose adat renamed a parameter is caught."""
    class Drifted:
        def adat(self, A, d, *, packed=False, ctx):
            pass
    assert _params(Drifted.adat) != _params(Method.adat)


def test_methods_are_the_dispatch_names():
    assert METHODS == ("auto", *IMPLEMENTATIONS)
    with pytest.raises(ValueError, match="no implementation"):
        implementation("nonesuch")


def _packages():
    yield glgpgpu
    for info in pkgutil.walk_packages(glgpgpu.__path__, "glgpgpu."):
        if info.ispkg:
            yield importlib.import_module(info.name)


@pytest.mark.parametrize("pkg", list(_packages()), ids=lambda p: p.__name__)
def test_no_package_attribute_shadows_a_submodule(pkg):
    """`pkg.name` is the submodule `pkg/name.py` whenever that file exists: no function
    of the same name hides it (paper.cholesky was once a function)."""
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("__"):
            continue
        full = f"{pkg.__name__}.{info.name}"
        mod = importlib.import_module(full)
        assert getattr(pkg, info.name, mod) is mod, f"{pkg.__name__}.{info.name} is not the module {full}"

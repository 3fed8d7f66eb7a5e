"""glgpgpu.limits itself: the table names real module constants, override restores them,
GLGPGPU_LIMITS is read, and no module keeps a copy of a limit that an override would
miss (a `from x import LIMIT`, a default argument, a class attribute) -- no GL."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from glgpgpu import limits

PKG = Path(limits.__file__).resolve().parent


@pytest.mark.parametrize("lim", limits.LIMITS, ids=lambda lim: lim.name)
def test_each_limit_is_a_module_constant_with_a_smaller_small_value(lim):
    value = lim.value
    assert value is None or isinstance(value, int), lim.name
    assert lim.small > 0 and lim.small % lim.multiple == 0
    if value is not None:
        assert lim.small < value, f"{lim.name}: small {lim.small} is not below {value}"
    assert lim.what


def test_override_sets_and_restores():
    before = limits.current()
    with limits.override("small") as now:
        assert all(now[lim.name] == lim.small for lim in limits.LIMITS)
        with limits.override({"compute.qr.PANEL_ROWS": 5}):
            assert limits.get("compute.qr.PANEL_ROWS").value == 5
        assert limits.get("compute.qr.PANEL_ROWS").value == limits.get("compute.qr.PANEL_ROWS").small
    assert limits.current() == before


def test_unknown_names_and_bad_values_are_refused_before_anything_changes():
    before = limits.current()
    with pytest.raises(KeyError, match="no internal limit 'compute.qr.PANEL_ROW'.*compute.qr.PANEL_ROWS"):
        limits.set_limits({"compute.qr.CHUNK_ROWS": 32, "compute.qr.PANEL_ROW": 3})
    with pytest.raises(ValueError, match="NAME=VALUE"):
        limits.set_limits("compute.qr.PANEL_ROWS")
    with pytest.raises(ValueError, match="multiple of 16"):
        limits.set_limits({"compute.qr.CHUNK_ROWS": 20})
    assert limits.current() == before


def test_the_environment_variable_is_read_at_import():
    code = ("import glgpgpu; from glgpgpu import limits; print(limits.get('compute.qr.PANEL_ROWS').value, "
            "limits.get('layouts.tiles.DEFAULT_TILE').value)")
    env = dict(os.environ, GLGPGPU_LIMITS="compute.qr.PANEL_ROWS=77, layouts.tiles.DEFAULT_TILE=96")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["77", "96"]
    env[limits.ENV] = "small"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["64", "64"]


def _copies(path: Path, owners: dict) -> list:
    """Where a module binds a registered limit's value at import: `from owner import X`,
    a default argument or a class attribute reading the bare name."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    me = ".".join(p for p in rel.parts if p != "__init__")
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = me.split(".")[:len(me.split(".")) - node.level + (path.name == "__init__.py")]
            mod = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                if alias.name in owners.get(mod, ()):
                    found.append(f"{me}: from {mod} import {alias.name}")
        defaults = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
        if isinstance(node, ast.ClassDef):
            defaults = [s.value for s in node.body if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value]
        for d in defaults:
            for sub in ast.walk(d):
                if isinstance(sub, ast.Name) and sub.id in owners.get(me, ()):
                    found.append(f"{me}: {sub.id} bound at definition (line {sub.lineno})")
    return found


def test_no_module_keeps_a_copy_an_override_would_miss():
    owners = {}
    for lim in limits.LIMITS:
        owners.setdefault(f"glgpgpu.{lim.module}", set()).add(lim.attr)
    found = [c for p in sorted(PKG.rglob("*.py")) for c in _copies(p, owners)]
    assert not found, "read these limits through their module at call time: " + "; ".join(found)


def test_every_limit_is_crossed_by_a_test():
    import importlib.util
    spec = importlib.util.spec_from_file_location("crossed", Path(__file__).with_name("test_limits_crossed.py"))
    crossed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(crossed)
    CROSSED = crossed.CROSSED
    assert set(CROSSED) == {lim.name for lim in limits.LIMITS}

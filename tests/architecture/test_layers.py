"""The folder tree is the architecture: these tests read every module's imports
(without running them, function-level imports included) and fail on an import
cycle, on a layer reaching one it may not use, or on moderngl outside gl/.
docs/ARCHITECTURE.md explains the rules; change both together."""
import ast
import importlib
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "glgpgpu"

#: layer -> the layers it may import (besides itself).  Bottom first.
ALLOWED = {
    "errors": set(),
    "limits": set(),
    "kernel_functions": set(),
    "parallel": set(),
    "validate": {"errors", "parallel"},
    "layouts": {"parallel", "validate"},
    "figures": {"layouts"},
    "scheduling": set(),
    "symbolic": {"errors"},
    "gl": {"errors", "parallel", "layouts"},
    "methods": {"gl", "errors", "figures"},
    "vectors": {"gl", "figures"},
    "tiled": {"gl", "layouts", "errors", "methods", "parallel"},
    "paper": {"gl", "figures", "layouts", "errors", "validate", "tiled", "methods"},
    "blocked": {"gl", "figures", "layouts", "errors", "tiled", "methods", "scheduling"},
    "compute": {"gl", "layouts", "errors", "methods", "tiled", "parallel"},
    "dispatch": {"paper", "blocked", "compute", "methods"},
    "api": {"dispatch", "gl", "layouts", "validate"},
    "solvers": {"dispatch", "gl", "vectors", "errors", "validate", "parallel", "layouts", "symbolic", "kernel_functions",
                "distributed",
                "scheduling"},
    "linalg": {"api", "solvers"},
    "distributed": {"dispatch", "gl", "layouts", "errors", "validate", "kernel_functions", "parallel"},
    "optimize": {"solvers"},
    "teach": {"gl", "figures", "layouts", "paper", "errors", "symbolic"},
    "bench": {"gl", "figures", "layouts", "paper", "blocked", "compute", "tiled", "teach", "solvers", "api",
              "dispatch", "vectors", "errors", "validate", "methods", "symbolic", "scheduling"},
    "cli": {"gl", "errors", "bench", "teach", "solvers"},
    "__main__": {"cli"},
}


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules():
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _type_checking_lines(tree):
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                skip.update(range(sub.lineno, sub.end_lineno + 1))
    return skip


def imports_of(name: str, path: Path, known: set, typing_too: bool = False) -> set:
    """glgpgpu modules that `name` imports anywhere in its file (typing_too: the
    imports under `if TYPE_CHECKING:` as well)."""
    tree = ast.parse(path.read_text())
    skip = set() if typing_too else _type_checking_lines(tree)
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("glgpgpu"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("glgpgpu"):
                continue
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                out.add(sub if sub in known else mod)
    return {m for m in out if m in known and m != name}


def graph(typing_too: bool = False):
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known, typing_too) for name, path in mods.items()}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "glgpgpu"


def test_every_module_is_in_a_known_layer():
    unknown = {m for m in modules() if layer(m) not in ALLOWED and m != "glgpgpu"}
    assert not unknown, f"add these to ALLOWED (and docs/ARCHITECTURE.md): {sorted(unknown)}"


def test_no_import_cycle(typing_too: bool = False):
    g = graph(typing_too)
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(g[n]):
            if state.get(m) == 1:
                cycle = stack[stack.index(m):] + [m]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(g):
        if n not in state:
            visit(n)


def test_layers_import_only_what_they_may():
    bad = []
    for mod, deps in graph().items():
        src = layer(mod)
        if src == "glgpgpu":
            continue
        for dep in deps:
            dst = layer(dep)
            if dst != src and dst not in ALLOWED[src]:
                bad.append(f"{mod} -> {dep}  ({src} may not use {dst})")
    assert not bad, "\n".join(bad)


def test_paper_and_blocked_never_import_each_other():
    for mod, deps in graph().items():
        for a, b in (("paper", "blocked"), ("blocked", "paper")):
            if layer(mod) == a:
                assert not any(layer(d) == b for d in deps), mod


def test_only_gl_talks_to_moderngl():
    offenders = []
    for name, path in modules().items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n.split(".")[0] == "moderngl" for n in names) and layer(name) != "gl":
                offenders.append(name)
    assert not offenders, f"moderngl imported outside glgpgpu/gl: {offenders}"


def test_the_checker_finds_a_cycle(tmp_path, monkeypatch):
    """The cycle test can fail: a fake package with a -> b -> a is caught."""
    fake = tmp_path / "glgpgpu"
    (fake / "gl").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "gl" / "__init__.py").write_text("")
    (fake / "gl" / "a.py").write_text("from . import b\n")
    (fake / "gl" / "b.py").write_text("def f():\n    from .a import x\n")
    monkeypatch.setattr(__import__(__name__), "PKG", fake)
    with pytest.raises(pytest.fail.Exception, match="import cycle"):
        test_no_import_cycle()


@pytest.mark.parametrize("name", sorted(m for m in modules() if not m.endswith("__main__")))
def test_every_module_imports(name):
    importlib.import_module(name)


def test_no_cycle_in_gl_even_through_typing_only_imports():
    """The engine's modules import one way only, annotations included: context ->
    kernels -> geometry / programs / textures, never back."""
    g = {m: {d for d in deps if layer(d) == "gl"} for m, deps in graph(typing_too=True).items() if layer(m) == "gl"}
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(g.get(n, ())):
            assert state.get(m) != 1, "import cycle in gl/: " + " -> ".join(path + [m])
            if m not in state:
                visit(m, path + [m])
        state[n] = 2

    for n in sorted(g):
        if n not in state:
            visit(n, [n])


def test_layouts_take_no_context():
    """layouts/ is index arithmetic: no function of it takes a GL context, none imports gl/."""
    offenders = []
    for name, path in modules().items():
        if layer(name) != "layouts":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = [a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs]
                if {"ctx", "context"} & set(args):
                    offenders.append(f"{name}.{node.name}")
    assert not offenders, f"layouts/ functions taking a context: {offenders}"


def test_only_gl_reaches_the_pool_through_kernels():
    """The texture pool is the context's own part (ctx.pool): nothing outside gl/
    reaches it through the draw call's object (`*.kernels.pool`)."""
    import re

    root = PKG.parent
    hits = [f"{p.relative_to(root)}:{i}" for p in sorted(root.glob("glgpgpu/**/*.py")) if p.parent.name != "gl"
            for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"kernels\.pool\b", line)]
    assert not hits, hits


def _documented_layers():
    """docs/ARCHITECTURE.md's layer table: {layer: the set its 'may import' column names}."""
    doc = (PKG.parent / "docs" / "ARCHITECTURE.md").read_text()
    table = doc.split("| layer | what it holds | may import |", 1)[1].split("\n\n", 1)[0]
    out = {}
    for row in table.strip().splitlines()[1:]:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        names = [n.strip("` ").removesuffix(".py").rstrip("/") for n in cells[0].split(",")]
        may = {w.strip("` ").removesuffix(".py").rstrip("/") for w in cells[-1].split(",")}
        for n in names:
            out[n] = may
    return out


def test_architecture_md_is_the_layer_map():
    """Every layer the test allows is in docs/ARCHITECTURE.md's table, with the same layers in
    its 'may import' column (bench: everything but cli): the map a reader reads is the rule."""
    doc = _documented_layers()
    assert set(ALLOWED) - {"__main__"} <= set(doc) | {"__main__"}, sorted(set(ALLOWED) - set(doc))
    for layer, allowed in ALLOWED.items():
        if layer in ("bench", "__main__"):
            continue
        named = doc[layer] - {"—", "numpy", "scipy"}
        assert named == allowed, f"{layer}: ARCHITECTURE.md says {sorted(named)}, the test allows {sorted(allowed)}"

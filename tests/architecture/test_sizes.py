"""Rooms a newcomer can read: no module of glgpgpu/ over 600 lines, no class over 400, no
function over 100 (the house issue's line; measured by the source, docstrings included)."""
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "glgpgpu"
MODULE, CLASS, FUNCTION = 600, 400, 100


def _too_long(limit_module=MODULE, limit_class=CLASS, limit_function=FUNCTION, root=PKG):
    out = []
    for path in sorted(root.rglob("*.py")):
        src = path.read_text()
        name = path.relative_to(root.parent)
        if src.count("\n") > limit_module:
            out.append(f"{name}: {src.count(chr(10))} lines")
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > (limit_class if isinstance(node, ast.ClassDef) else limit_function):
                    out.append(f"{name}: {node.name} {n} lines")
    return out


def test_no_room_is_too_big():
    assert not _too_long(), "\n".join(_too_long())


def test_the_check_can_fail():
    assert _too_long(limit_module=100, limit_class=50, limit_function=20)

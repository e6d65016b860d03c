"""The suite's own layout: helpers live in tests/helpers/, written once; conftests hold fixtures
and hooks that no module imports (pytest finds them by itself)."""

import ast
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).parent
# Written once, in tests/helpers/, and imported by every test that needs them.
SHARED = ("soup_of", "post_attempt", "with_csrf", "csrf_client", "sign_in", "attempt_payload")


def _modules() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"), str(path))
        for path in sorted(TESTS.rglob("*.py"))
        if "node_modules" not in path.parts
    }


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules `node` imports (`from . import conftest` names conftest as a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    module = "." * node.level + (node.module or "")
    return [module] + ([f"{module}.{alias.name}" for alias in node.names] if not node.module else [])


def _overload(function: ast.FunctionDef) -> bool:
    """A typing overload, which declares a signature of a function defined beside it."""
    return any(isinstance(d, ast.Name) and d.id == "overload" for d in function.decorator_list)


def test_no_module_imports_from_a_conftest() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{node.lineno} imports {name}"
        for path, module in _modules().items()
        for node in ast.walk(module)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in _imported(node)
        if "conftest" in name.replace(".", " ").split()
    ]
    assert offenders == []


def test_each_shared_helper_is_defined_once_in_the_helpers_package() -> None:
    defined = [
        (node.name, path.relative_to(TESTS).parts[0])
        for path, module in _modules().items()
        for node in ast.walk(module)
        if isinstance(node, ast.FunctionDef) and node.name in SHARED and not _overload(node)
    ]
    assert Counter(name for name, _ in defined) == Counter(SHARED)
    assert {folder for _, folder in defined} == {"helpers"}

"""The suite's own layout: helpers live in tests/helpers/, written once; conftests hold fixtures
and hooks that no module imports (pytest finds them by itself)."""

import ast
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.engine_agnostic

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


def _imports_of(forbidden: Callable[[str], bool]) -> list[str]:
    """Where a module of the suite imports a module that `forbidden` names."""
    return [
        f"{path.relative_to(TESTS)}:{node.lineno} imports {name}"
        for path, module in _modules().items()
        for node in ast.walk(module)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in _imported(node)
        if forbidden(name)
    ]


def test_no_module_imports_from_a_conftest() -> None:
    offenders = _imports_of(lambda name: "conftest" in name.replace(".", " ").split())
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


def _test_module(name: str) -> bool:
    """A module of tests (`tests.x.test_y`), as opposed to helpers, factories and the like."""
    return name.startswith("tests.") and any(part.startswith("test_") for part in name.split(".")[1:])


def test_no_test_module_imports_from_another_test_module() -> None:
    # What tests share lives in tests/helpers/ or tests/factories.py, so that no test module
    # depends on another one's collection or fixtures.
    offenders = _imports_of(_test_module)
    assert offenders == []

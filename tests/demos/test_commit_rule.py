"""Who commits in the demos domain (docs/architecture.md): the service function that decides a
write, so what a route acknowledges is stored and a refusal stores nothing. The demo routes and
the worker call those services and never commit themselves."""

import ast
from pathlib import Path

import pytest

from app import PROJECT_ROOT

pytestmark = pytest.mark.engine_agnostic

DEMOS = PROJECT_ROOT / "app" / "demos"
WORKER = PROJECT_ROOT / "app" / "worker"


def _commits(path: Path) -> list[int]:
    """The lines where a module calls `.commit()`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "commit"
    ]


def test_the_demo_routes_and_the_worker_never_commit() -> None:
    modules = [
        *sorted((DEMOS / "routers").glob("*.py")),
        DEMOS / "execution.py",
        PROJECT_ROOT / "app" / "speech" / "transcription.py",
        *sorted(WORKER.glob("*.py")),
    ]
    names = {p.name for p in modules}
    assert {"api.py", "pages.py", "consumer.py", "execution.py", "transcription.py", "heartbeat.py"} <= names
    committing = {str(p.relative_to(PROJECT_ROOT)): lines for p in modules if (lines := _commits(p))}
    assert committing == {}


def test_the_services_that_write_a_run_commit_it() -> None:
    # Both halves of the runs' rules store what they decide: cancel, submit, claims, endings.
    assert _commits(DEMOS / "runs.py") and _commits(DEMOS / "claims.py")

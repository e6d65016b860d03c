"""The import rules docs/architecture.md states, checked on every module of app/.

- Services never import the HTTP layer: no FastAPI or Starlette, no router, nothing from app.web.
- Only the app factory imports routers.
- Lower layers never import higher ones: storage imports no domain, content imports no other domain.
- Only the demo pipelines import TensorFlow, and building the web app never loads it.
- Only the request guard reads the connection's own address: everything else asks
  app.web.dependencies.client_address, which names the visitor behind a trusted proxy.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from app import PROJECT_ROOT

APP = PROJECT_ROOT / "app"
DOMAINS = ("accounts", "content", "practice", "demos", "team", "authoring")
HTTP_FRAMEWORKS = ("fastapi", "starlette")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


MODULES = {_module_name(path): _imports(path) for path in sorted(APP.rglob("*.py"))}


def _is_router(module: str) -> bool:
    last = module.split(".")
    return last[-1] == "router" or "routers" in last


def _is_http_layer(module: str) -> bool:
    return (
        module.startswith("app.web")
        or _is_router(module)
        or module.endswith((".dependencies", ".middleware"))
    )


def _imports_any(imports: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(i for i in imports if any(i == p or i.startswith(p + ".") for p in prefixes))


# The entry points (the command line, the ASGI factory for other servers) start the whole app.
ENTRY_POINTS = ("app.cli", "app.main")
SERVICES = sorted(m for m in MODULES if m not in ENTRY_POINTS and not _is_http_layer(m))


def test_the_rules_see_every_domain_and_its_services() -> None:
    for domain in DOMAINS:
        assert any(m.startswith(f"app.{domain}.") for m in SERVICES), domain
    assert "app.demos.service" in SERVICES and "app.practice.attempts" in SERVICES


@pytest.mark.parametrize("module", SERVICES)
def test_services_do_not_import_the_http_layer(module: str) -> None:
    imports = MODULES[module]
    assert _imports_any(imports, HTTP_FRAMEWORKS) == []
    assert _imports_any(imports, ("app.web",)) == []
    assert [i for i in imports if i.startswith("app.") and _is_router(i)] == []


def test_only_the_app_factory_imports_routers() -> None:
    importers = {
        module
        for module, imports in MODULES.items()
        if any(i.startswith("app.") and _is_router(i) and not _is_router(module) for i in imports)
    }
    assert importers == {"app.web.factory"}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("app.storage")))
def test_storage_imports_no_domain(module: str) -> None:
    assert _imports_any(MODULES[module], (*(f"app.{d}" for d in DOMAINS), "app.web")) == []


@pytest.mark.parametrize("module", sorted(m for m in SERVICES if m.startswith("app.content")))
def test_content_imports_no_other_domain(module: str) -> None:
    others = tuple(f"app.{d}" for d in DOMAINS if d != "content")
    # The parser checks a card's `demos:` and its notes' demos against the preset declarations,
    # which need no TensorFlow.
    allowed = {
        "app.demos.presets",
        "app.demos.presets.PRESETS",
        "app.demos.presets.ParamError",
        "app.demos.presets.validate_params",
    }
    assert [i for i in _imports_any(MODULES[module], others) if i not in allowed] == []


@pytest.mark.parametrize("module", sorted(m for m in SERVICES if m.startswith("app.demos")))
def test_demo_services_import_no_content(module: str) -> None:
    # content imports the preset declarations, so the arrow may not also point back.
    assert _imports_any(MODULES[module], ("app.content",)) == []


def test_only_the_demo_pipelines_import_tensorflow() -> None:
    importers = {module for module, imports in MODULES.items() if _imports_any(imports, ("tensorflow",))}
    assert importers == {"app.demos.pipelines"}


def test_building_the_web_app_never_loads_tensorflow(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from app.settings import Settings\n"
        "from app.web.factory import create_app\n"
        f"create_app(Settings(data_dir={str(tmp_path)!r}, secret_key='x' * 40))\n"
        "from app.cli import cli\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras'))\n"
        "print(loaded)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stderr


def _reads_the_peer(path: Path) -> bool:
    """`request.client` or `scope["client"]`: the connection's peer, which behind a proxy is the proxy."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "client"
            and isinstance(node.value, ast.Name)
            and node.value.id == "request"
        ):
            return True
        key = node.slice if isinstance(node, ast.Subscript) else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            key = node.args[0] if node.args else None
        if isinstance(key, ast.Constant) and key.value == "client":
            return True
    return False


def test_only_the_request_guard_reads_the_connection_s_own_address() -> None:
    readers = {_module_name(path) for path in sorted(APP.rglob("*.py")) if _reads_the_peer(path)}
    assert readers == {"app.web.guards"}

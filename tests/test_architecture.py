"""The import rules docs/architecture.md states, checked on every import of every module of app/.

- The packages and the arrows allowed between them are declared once, in ALLOWED, bottom to top:
  a package may import only packages declared below it, so the table has no cycle, and every
  import of every module must follow it. The doc shows the same table.
- No two modules import each other, directly or round a loop.
- Services never import the HTTP layer: no FastAPI or Starlette, no router, nothing from app.web.
- Only the composition root (app/factory.py) imports routers.
- A service function of more than two parameters takes every one after the first by keyword.
- Routes under /api/ live in a router module named `api`, beside the pages.
- Only the demo pipelines import TensorFlow, and building the web app never loads it.
- Only the request guard reads the connection's own address: everything else asks
  app.web.dependencies.client_address, which names the visitor behind a trusted proxy.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app import PROJECT_ROOT

pytestmark = pytest.mark.engine_agnostic

APP = PROJECT_ROOT / "app"
DOMAINS = (
    "accounts",
    "content",
    "coverage",
    "practice",
    "interview",
    "transfer",
    "demos",
    "team",
    "authoring",
    "speech",
    "worker",
)
HTTP_FRAMEWORKS = ("fastapi", "starlette")

# Each package of app/ (a top-level module counts as one; `app` is app/__init__.py) and what it may
# import besides itself, bottom to top. An import of a package not in its row fails the test, and a
# row may name only rows above it, so an arrow can only point down.
ALLOWED: dict[str, frozenset[str]] = {
    package: frozenset(may_import.split())
    for package, may_import in (
        ("app", ""),
        ("exceptions", ""),
        ("schemas", ""),
        ("logs", ""),
        ("metrics", ""),
        ("roles", ""),
        ("auth_modes", ""),
        ("voices", ""),
        ("settings", "app auth_modes roles voices"),
        ("storage", "app settings"),
        ("web", "app exceptions logs metrics settings"),
        ("backups", "exceptions settings storage web"),
        ("presets", "exceptions"),
        ("content", "exceptions presets web"),
        ("accounts", "exceptions roles schemas settings storage web"),
        ("jobs", "exceptions presets settings storage"),
        ("coverage", "accounts content exceptions jobs schemas web"),
        ("speech", "accounts content exceptions jobs schemas settings storage voices web"),
        ("practice", "accounts content coverage exceptions jobs metrics schemas speech storage web"),
        ("interview", "accounts content coverage exceptions practice schemas speech storage web"),
        ("transfer", "accounts content exceptions interview practice schemas speech storage web"),
        ("demos", "accounts content exceptions jobs presets speech storage web"),
        ("worker", "app backups demos jobs logs practice settings speech storage"),
        ("authoring", "accounts content coverage exceptions practice schemas storage web"),
        ("team", "accounts content coverage demos exceptions interview practice schemas storage web"),
        ("ops", "content demos exceptions jobs metrics settings speech web"),
        (
            "factory",
            "app accounts authoring backups content coverage demos interview jobs ops practice settings speech storage team"
            " transfer web",
        ),
        ("main", "factory"),
        (
            "cli",
            "accounts authoring backups content coverage demos exceptions jobs logs practice presets roles settings"
            " speech storage"
            " team worker",
        ),
    )
}


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


PATHS = {_module_name(path): path for path in sorted(APP.rglob("*.py"))}
MODULES = {module: _imports(path) for module, path in PATHS.items()}


def _package(module: str) -> str:
    """`app.practice.routers.api` -> `practice`; `app` itself -> `app`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _defined(name: str) -> str | None:
    """The module of app/ that `name` (a module, or a name imported from one) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _arrows(modules: dict[str, set[str]]) -> dict[str, set[str]]:
    """Module -> the modules of app/ it imports."""
    return {
        module: {d for i in imports if i.split(".")[0] == "app" and (d := _defined(i)) not in (None, module)}
        for module, imports in modules.items()
    }


def _refused(modules: dict[str, set[str]]) -> list[str]:
    """Every import the table does not allow, as `module -> imported`."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in _arrows(modules).items()
        for target in targets
        if _package(target) != _package(module) and _package(target) not in ALLOWED.get(_package(module), ())
    )


def _cycles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """Each loop of imports (Tarjan's strongly connected components larger than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(arrows.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            loop = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(loop) > 1:
                loops.append(sorted(loop))

    for node in sorted(arrows):
        if node not in index:
            visit(node)
    return loops


def _is_router(module: str) -> bool:
    return "routers" in module.split(".")


def _is_http_layer(module: str) -> bool:
    return (
        # The HTTP kit below the domains, and the operations routes above them.
        module.startswith(("app.web", "app.ops"))
        or _is_router(module)
        or module.endswith((".dependencies", ".middleware"))
    )


def _imports_any(imports: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(i for i in imports if any(i == p or i.startswith(p + ".") for p in prefixes))


# The entry points (the command line, the ASGI factory for other servers) and the composition root
# start the whole app.
ENTRY_POINTS = ("app.cli", "app.main", "app.factory")
SERVICES = sorted(m for m in MODULES if not m.startswith(ENTRY_POINTS) and not _is_http_layer(m))


def test_the_rules_see_every_domain_and_its_services() -> None:
    for domain in DOMAINS:
        assert any(m.startswith(f"app.{domain}.") for m in SERVICES), domain
    assert "app.demos.runs" in SERVICES and "app.practice.attempts" in SERVICES


@pytest.mark.parametrize("module", SERVICES)
def test_services_do_not_import_the_http_layer(module: str) -> None:
    imports = MODULES[module]
    assert _imports_any(imports, HTTP_FRAMEWORKS) == []
    assert _imports_any(imports, ("app.web",)) == []
    assert [i for i in imports if i.startswith("app.") and _is_router(i)] == []


def test_only_the_composition_root_imports_routers() -> None:
    importers = {
        module
        for module, imports in MODULES.items()
        if any(i.startswith("app.") and _is_router(i) and not _is_router(module) for i in imports)
    }
    assert importers == {"app.factory"}


def test_the_table_names_every_package_and_points_only_down() -> None:
    assert {_package(m) for m in MODULES} == set(ALLOWED)
    below: set[str] = set()
    for package, may_import in ALLOWED.items():
        assert may_import <= below, (
            f"{package} may import {sorted(may_import - below)}, which is not below it"
        )
        below.add(package)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_import_follows_the_table(module: str) -> None:
    assert _refused({module: MODULES[module]}) == []


def test_no_modules_import_each_other_round_a_loop() -> None:
    assert _cycles(_arrows(MODULES)) == []


def test_an_import_the_table_does_not_allow_is_refused() -> None:
    """The check itself: practice reaching up into team (the "assigned to you" box used to) fails,
    and so does a loop."""
    upward = {**MODULES, "app.practice.stats": MODULES["app.practice.stats"] | {"app.team.assignments"}}
    assert _refused(upward) == ["app.practice.stats -> app.team.assignments"]
    looped = {**MODULES, "app.content.cards": MODULES["app.content.cards"] | {"app.content.catalogue"}}
    assert any(
        {"app.content.catalogue", "app.content.cards"} <= set(loop) for loop in _cycles(_arrows(looped))
    )


def test_the_doc_shows_the_same_table() -> None:
    doc = (PROJECT_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]*) \|$", doc, flags=re.MULTILINE)
    shown = {package: frozenset(re.findall(r"`([a-z_]+)`", may_import)) for package, may_import in rows}
    assert shown == ALLOWED
    assert [package for package, _ in rows] == list(ALLOWED)[::-1], "the doc lists them top to bottom"


def test_only_the_demo_pipelines_import_tensorflow() -> None:
    importers = {module for module, imports in MODULES.items() if _imports_any(imports, ("tensorflow",))}
    assert importers == {"app.demos.pipelines"}


# The worker's libraries: the web image installs none of them (Dockerfile, target web).
WORKER_ONLY = (
    "tensorflow",
    "keras",
    "numpy",
    "av",
    "faster_whisper",
    "ctranslate2",
    "onnxruntime",
    "tokenizers",
    "tiercards_claims_model",
)


def test_building_the_web_app_never_loads_a_worker_library(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from app.settings import Settings\n"
        "from app.factory import create_app\n"
        f"create_app(Settings(data_dir={str(tmp_path)!r}, secret_key='x' * 40))\n"
        "from app.cli import cli\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {WORKER_ONLY!r})\n"
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


# Signatures a framework fixes: a Jinja filter given its context, the markdown highlighter's callback.
FIXED_SIGNATURES = {"app.content.filters.noted", "app.content.render._highlight"}


def _positional_beyond_the_first(path: Path, module: str) -> list[str]:
    """Functions of more than two parameters that take more than the first one by position.
    Exception classes are left out: they read as `raise Invalid("field", "message")`."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exceptions = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(isinstance(b, ast.Name) and b.id.endswith(("Error", "Exception")) for b in node.bases)
    }
    for parent in ast.walk(tree):
        if isinstance(parent, ast.ClassDef) and parent.name in exceptions:
            continue
        for node in ast.iter_child_nodes(parent):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name.startswith("__"):
                continue
            args = node.args
            positional = [a.arg for a in (*args.posonlyargs, *args.args) if a.arg not in ("self", "cls")]
            too_many = len(positional) + len(args.kwonlyargs) > 2 and len(positional) > 1
            if too_many and f"{module}.{node.name}" not in FIXED_SIGNATURES:
                found.append(f"{module}:{node.lineno} {node.name}({', '.join(positional)}, ...)")
    return found


@pytest.mark.parametrize("module", SERVICES)
def test_services_of_more_than_two_parameters_take_them_by_keyword(module: str) -> None:
    assert _positional_beyond_the_first(PATHS[module], module) == []


def _api_paths(path: Path) -> list[str]:
    """The paths under /api/ a module's route decorators declare, and an `/api` router prefix."""
    paths = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        prefixes = [k.value for k in node.keywords if k.arg == "prefix"]
        first = node.args[:1] if isinstance(node.func, ast.Attribute) else []
        for value in (*first, *prefixes):
            if isinstance(value, ast.Constant) and str(value.value).startswith("/api"):
                paths.append(str(value.value))
    return paths


def test_json_routes_live_in_api_modules_beside_the_pages() -> None:
    misplaced = {
        _module_name(path): paths
        for path in sorted(APP.rglob("*.py"))
        if _is_router(_module_name(path))
        and _module_name(path).rpartition(".")[2] != "api"
        and (paths := _api_paths(path))
    }
    assert misplaced == {}


def test_every_router_lives_in_a_routers_package() -> None:
    """One style: a module that declares routes is `<package>/routers/<name>.py`."""
    declaring = {
        _module_name(path)
        for path in sorted(APP.rglob("*.py"))
        if "APIRouter(" in path.read_text(encoding="utf-8")
    }
    assert sorted(m for m in declaring if m.split(".")[-2] != "routers") == []


def test_no_two_modules_of_app_share_a_name() -> None:
    """A name says what a module holds: two modules may share one only when it is a role every
    package has (models, service, router modules, ...)."""
    roles = {"models", "schemas", "service", "dependencies", "filters", "api", "pages"}
    # What a domain hands the worker (its child process) and /metrics (its figures), in each
    # domain that has one.
    roles |= {"child", "figures"}
    names: dict[str, list[str]] = {}
    for module, path in PATHS.items():
        if path.stem != "__init__":
            names.setdefault(path.stem, []).append(module)
    assert {name: sorted(ms) for name, ms in names.items() if len(ms) > 1 and name not in roles} == {}


def test_the_doc_describes_every_package() -> None:
    """docs/architecture.md has one paragraph per package of app/, opening with its path in bold."""
    doc = (PROJECT_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    described = set(re.findall(r"^\*\*`app/([a-z_]+)/?`\*\*", doc, flags=re.MULTILINE))
    packages = {path.parent.name for path in APP.glob("*/__init__.py")}
    assert described == packages


# What a worker's child process must not load: the database and queue its parent uses, the web, and
# the other kind of child's library. Each is memory the child's limit counts.
PARENT_ONLY = ("sqlalchemy", "huey", "redis", "psycopg", "fastapi", "starlette", "jinja2")


@pytest.mark.parametrize(
    ("child", "foreign"),
    [
        ("app.demos.child", ("faster_whisper", "av", "onnxruntime")),
        ("app.speech.child", ("tensorflow", "onnxruntime")),
        ("app.coverage.child", ("tensorflow", "faster_whisper", "av")),
    ],
)
def test_a_worker_child_loads_only_its_own_side(child: str, foreign: tuple[str, ...]) -> None:
    # A spawned child imports the runner (its entry point) and the module of its serve function.
    script = (
        f"import sys, app.worker.runner, {child}\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(PARENT_ONLY + foreign)!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stderr

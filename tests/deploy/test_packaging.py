"""A wheel built from the checkout, installed somewhere else, serves every page.

Templates, static files, migrations and the default cards sit at the top of the repository, beside
app/; the wheel must carry them (setup.py bundles them), or an installed tiercards (the Docker
images install the wheel) would serve errors. The wheel is built as the Dockerfile's builder stage
builds it, from the files the build context holds (.dockerignore), and goes into a fresh virtual
environment that borrows only the development environment's dependencies, never the checkout; it
is started from an unrelated folder.
"""

import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from alembic.script import ScriptDirectory
from bs4 import BeautifulSoup
from sqlalchemy import create_engine, inspect, text

from app import PROJECT_ROOT
from app.content.catalogue import load
from app.settings import Settings
from tests.deploy.deployment import copy_build_context
from tests.servers import free_port, wait_healthy
from tests.services import database_url

OWNER_CARD = "tf-data-prefetch-last"


@dataclass
class Installed:
    venv: Path
    url: str
    database_url: str


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _outside_the_checkout() -> dict[str, str]:
    """The environment without anything that would point Python or the app at the checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONTENT_DIR", "DATA_DIR")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    folder = tmp_path_factory.mktemp("wheel")
    context, wheels = folder / "context", folder / "wheels"
    copy_build_context(context)
    pip = (sys.executable, "-m", "pip")
    _run(
        *pip,
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--wheel-dir",
        wheels,
        ".",
        cwd=context,
    )
    (wheel,) = wheels.glob("tiercards-*.whl")
    venv = folder / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=folder)
    python = venv / "bin" / "python"
    _run(*pip, "--python", python, "install", "--no-deps", "--no-index", wheel, cwd=folder)
    # The dependencies are imported from the development environment, added after the new
    # environment's own site-packages (a path line in a .pth file runs none of that folder's own
    # .pth files, so the checkout's editable install is not picked up with them).
    new_site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=folder)
    Path(new_site.strip(), "development-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    data_dir = folder / "data"
    url = database_url(data_dir)
    env = {**_outside_the_checkout(), "DATA_DIR": str(data_dir), **({"DATABASE_URL": url} if url else {})}
    port = free_port()
    server = subprocess.Popen(
        [venv / "bin" / "tiercards", "serve", "--no-worker", "--port", str(port)], cwd=elsewhere, env=env
    )
    try:
        wait_healthy(server, f"http://127.0.0.1:{port}")
        yield Installed(venv, f"http://127.0.0.1:{port}", url or f"sqlite:///{data_dir / 'tiercards.db'}")
    finally:
        server.terminate()
        server.wait(timeout=15)


def test_the_installed_app_is_the_wheel_not_the_checkout(installed: Installed, tmp_path: Path) -> None:
    shown = _run(
        installed.venv / "bin" / "python",
        "-c",
        "import app; print(app.__file__); print(app.PROJECT_ROOT); print(app.DEFAULT_DATA_DIR)",
        cwd=tmp_path,
        env=_outside_the_checkout(),
    )
    module, root, data_dir = map(Path, shown.split())
    assert module.is_relative_to(installed.venv), module
    assert root.is_relative_to(installed.venv) and (root / "templates" / "base.html").is_file()
    # Without DATA_DIR, data goes to ./data where the app is started, not into the package.
    assert data_dir == Path("data")


def test_a_checkout_reads_its_own_top_level_folders() -> None:
    assert (PROJECT_ROOT / "pyproject.toml").is_file()
    assert Settings.model_fields["content_dir"].default == PROJECT_ROOT / "content"
    assert Settings.model_fields["data_dir"].default == PROJECT_ROOT / "data"


def _page(client: httpx.Client, path: str) -> BeautifulSoup:
    response = client.get(path)
    assert response.status_code == 200, f"{path}: {response.status_code} {response.text[:300]}"
    assert response.headers["content-type"].startswith("text/html")
    return BeautifulSoup(response.text, "html.parser")


def test_every_page_and_what_it_links_is_served(installed: Installed) -> None:
    checkout_cards = load(PROJECT_ROOT / "content").cards
    owner = checkout_cards[OWNER_CARD]
    with httpx.Client(base_url=installed.url, timeout=30) as client:
        library = _page(client, "/")
        listed = {str(a["href"]).split("?")[0] for a in library.select("a[href^='/cards/']")}
        assert listed == {f"/cards/{card_id}" for card_id in checkout_cards}

        pages = {
            "/": library,
            f"/cards/{OWNER_CARD}?tier=middle": _page(client, f"/cards/{OWNER_CARD}?tier=middle"),
            "/practice": _page(client, "/practice"),
            "/progress": _page(client, "/progress"),
            "/docs": _page(client, "/docs"),
        }
        card = pages[f"/cards/{OWNER_CARD}?tier=middle"]
        assert card.h1 is not None and card.h1.get_text() == owner.title.markdown.replace("`", "")
        for path in ("/practice", "/progress"):
            heading = pages[path].h1
            assert heading is not None and heading.get_text(strip=True), path

        linked = {
            str(tag.get("href") or tag.get("src"))
            for page in pages.values()
            for tag in page.select("link[href^='/static/'], script[src^='/static/'], img[src^='/static/']")
        }
        assert {"/static/vendor/htmx.min.js", "/static/vendor/swagger-ui/swagger-ui-bundle.js"} <= linked
        for path in sorted(linked):
            response = client.get(path)
            assert response.status_code == 200 and response.content, path
            assert response.content == (PROJECT_ROOT / path.lstrip("/")).read_bytes(), path

        assert client.get("/healthz").json()["status"] == "ok"
        served = client.get("/api/cards").json()
        assert {card["id"] for card in served["cards"]} == set(checkout_cards) and not served["broken"]


def test_the_migrations_ran_from_the_wheel(installed: Installed) -> None:
    head = ScriptDirectory(str(PROJECT_ROOT / "migrations")).get_current_head()
    engine = create_engine(installed.database_url)
    try:
        tables = set(inspect(engine).get_table_names())
        assert {"users", "attempts", "review_states", "demo_runs", "alembic_version"} <= tables, tables
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == head
    finally:
        engine.dispose()

"""The author preview read as a person sees it."""

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.accounts import service
from app.factory import create_app
from tests.helpers.accounts import PASSWORDS, accounts_settings, create_team, fresh_client, sign_in
from tests.helpers.html import HTMX, one, soup_of

# The one card the author tests' content folder serves (so a text that takes its id can be told so).
SERVED = "served-card"


def preview_of(client: TestClient, text: str, **form: str) -> Tag:
    """The preview the live update swaps in for `text`."""
    response = client.post("/author", data={"text": text, **form}, headers=HTMX)
    return one(soup_of(response), "#author-preview")


def problems(preview: Tag) -> list[str]:
    """Each problem as the list shows it: 'line N: message'."""
    return [" ".join(li.get_text().split()) for li in preview.select(".author-problems li")]


def textarea_text(page: BeautifulSoup) -> str:
    """The text a browser puts in the box: it drops the one line break right after the tag."""
    return one(page, "textarea[name=text]").get_text().removeprefix("\n")


def git(folder: Path, *args: str) -> str:
    """Debian's git in the content folder, as an operator runs it there."""
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def content_repository(folder: Path) -> Path:
    """A copy of the project's cards in `folder`, made a repository of its own with one commit."""
    shutil.copytree(PROJECT_ROOT / "content", folder)
    git(folder, "init", "--quiet", "--initial-branch=main")
    git(folder, "add", ".")
    git(
        folder,
        "-c",
        "user.name=Operator",
        "-c",
        "user.email=ops@example.invalid",
        "commit",
        "--quiet",
        "-m",
        "Cards",
    )
    return folder


@contextmanager
def editing_team(tmp_path: Path, *, repository: bool = True) -> Iterator[tuple[FastAPI, Path]]:
    """The team (alice and bob, members; root, admin) and ada, an author, on a copy of the cards
    (a repository of its own unless `repository` is false) that edits may change."""
    content = tmp_path / "content"
    if repository:
        content_repository(content)
    else:
        shutil.copytree(PROJECT_ROOT / "content", content)
    app = create_app(accounts_settings(tmp_path / "data", content_dir=content, proposals_per_hour=5))
    create_team(app)
    with app.state.db.write_sessions() as session:
        service.create_user(session, name="ada", role="author", password=PASSWORDS["alice"])
        session.commit()
    try:
        yield app, content
    finally:
        app.state.db.dispose()


def signed_in(app: FastAPI, name: str) -> TestClient:
    return sign_in(fresh_client(app), name, PASSWORDS["alice"] if name == "ada" else None)


def edited(text: str, old: str, new: str) -> str:
    assert old in text, f"not in the card: {old!r}"
    return text.replace(old, new, 1)

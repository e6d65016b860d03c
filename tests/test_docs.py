"""The README and docs/ as GitHub shows them: every relative link leads to a file of the repository,
every `#anchor` to a heading of its file, and what the README must keep in view stays one click
away from it."""

from pathlib import Path
from typing import get_args

import pytest

from app.auth_modes import AUTH_MODES, AuthModeName
from tests.helpers.docs import DOCS, README, broken_links, doc_paths, links, slug

pytestmark = pytest.mark.engine_agnostic


def test_every_link_of_the_readme_and_the_docs_resolves() -> None:
    assert broken_links(doc_paths()) == []


def test_the_readme_links_every_doc() -> None:
    linked = {
        (README.parent / link.target.partition("#")[0]).resolve()
        for link in links(README)
        if link.target.startswith("docs/")
    }
    unlinked = [path.name for path in sorted(DOCS.glob("*.md")) if path.resolve() not in linked]
    assert unlinked == [], f"docs/ pages the README does not link: {unlinked}"


@pytest.mark.parametrize(
    "target",
    [
        # The models' measured accuracy.
        "docs/benchmarks.md#the-coverage-checker",
        "docs/benchmarks.md#the-speech-model",
        # The GPU path, never run here, and what checks it.
        "docs/operating.md#not-run-here",
        # Running it for a team.
        "docs/team.md",
    ],
)
def test_the_readme_keeps_in_view(target: str) -> None:
    assert target in {link.target for link in links(README)}


def test_the_readme_states_the_two_commands_and_the_gpu_check() -> None:
    readme = README.read_text(encoding="utf-8")
    for command in ("make run", "make test", "make gpu-check"):
        assert f"```sh\n{command}\n```" in readme, command


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Signing in with your OpenID provider (OIDC)", "signing-in-with-your-openid-provider-oidc"),
        ("Everything on one host: compose", "everything-on-one-host-compose"),
        ("What changes first at 10\u00d7 (10,000 people)", "what-changes-first-at-10-10000-people"),
        (
            "Without `prefetch`, a training step is strictly serial",
            "without-prefetch-a-training-step-is-strictly-serial",
        ),
        ("The [speech model](operating.md) on_the workers", "the-speech-model-on_the-workers"),
        ("Per request: CPU", "per-request-cpu"),
    ],
)
def test_anchors_follow_githubs_rules(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_broken_link_is_reported_and_nothing_else(tmp_path: Path) -> None:
    tmp_path = tmp_path.resolve()
    _write(tmp_path / "app" / "main.py", "")
    _write(tmp_path / "docs" / "other.md", "# Other\n\n## Notes\n\n## Notes\n\n```sh\n# Not a heading\n```\n")
    readme = _write(
        tmp_path / "README.md",
        "# Doc\n\n"
        "[fine](docs/other.md#notes-1) [fine too](#doc) ![image](app/main.py) [code](app/main.py#L3)\n"
        "[site](https://example.org/missing) `[in a code span](nowhere.md)`\n"
        "```\n[in a code block](nowhere.md)\n```\n"
        "[missing file](docs/gone.md)\n"
        "[missing heading](docs/other.md#notes-2)\n"
        "[a comment is no heading](docs/other.md#not-a-heading)\n"
        "[missing here](#nowhere)\n"
        "[outside](../elsewhere.md)\n"
        "[ref]: app/missing.py\n",
    )
    assert broken_links([readme], root=tmp_path) == [
        "README.md:8: docs/gone.md: docs/gone.md does not exist",
        "README.md:9: docs/other.md#notes-2: #notes-2 is no heading of docs/other.md",
        "README.md:10: docs/other.md#not-a-heading: #not-a-heading is no heading of docs/other.md",
        "README.md:11: #nowhere: #nowhere is no heading of README.md",
        "README.md:12: ../elsewhere.md: ../elsewhere.md is outside the repository",
        "README.md:13: app/missing.py: app/missing.py does not exist",
    ]


def test_the_settings_table_names_every_way_to_sign_in_as_declared() -> None:
    row = next(
        line
        for line in (DOCS / "configuration.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `AUTH_MODE` |")
    )
    assert set(get_args(AuthModeName)) == set(AUTH_MODES)
    assert [mode.name for mode in AUTH_MODES.values() if f"`{mode.name}` ({mode.summary})" not in row] == []

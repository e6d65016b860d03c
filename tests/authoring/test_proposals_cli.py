"""`tiercards content proposals`: the suggested edits, as an operator lists them at a shell."""

import os
import subprocess
import sys
from pathlib import Path

from app import PROJECT_ROOT
from tests.factories import OWNER_CARD
from tests.helpers.authoring import edited, editing_team, signed_in
from tests.servers import data_env


def proposals_cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "content", "proposals", *args],
        cwd=PROJECT_ROOT,
        env={**os.environ, **data_env(data_dir), "AUTH_MODE": "accounts"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_open_ones_are_listed_and_the_decided_ones_on_request(tmp_path: Path) -> None:
    with editing_team(tmp_path) as (app, content):
        alice, ada = signed_in(app, "alice"), signed_in(app, "ada")
        text = (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
        for reason in ("first\tfix", "second fix"):
            changed = edited(text, "## Basics\n", f"## Basics\n{reason}. ")
            made = alice.post(
                f"/api/cards/{OWNER_CARD}/proposals", json={"markdown": changed, "reason": reason}
            )
            assert made.status_code == 201
        ada.post(f"/api/proposals/{made.json()['id']}/decline", json={"reason": "no"})
    listed = proposals_cli(tmp_path / "data")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [f"1\t{OWNER_CARD}\topen\talice\tfirst fix"]
    every = proposals_cli(tmp_path / "data", "--status", "all").stdout.splitlines()
    assert [line.split("\t")[2] for line in every] == ["declined", "open"]
    wrong = proposals_cli(tmp_path / "data", "--status", "maybe")
    assert wrong.returncode == 2 and "--status must be open, accepted, declined or all" in wrong.stderr

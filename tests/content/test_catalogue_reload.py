"""`Catalogue.reload()`: what a save made through the app calls, so that the process that saved
serves the change at once, without waiting for its next look at the folder."""

import os
from pathlib import Path

import pytest

from app.content.catalogue import Catalogue
from tests.factories import card_text, write_card

pytestmark = pytest.mark.engine_agnostic


def title(catalogue: Catalogue, card_id: str) -> str | None:
    card = catalogue.get(card_id)
    return card.title.markdown if card else None


def test_a_reload_serves_a_new_card_before_the_next_look_at_the_folder(tmp_path: Path) -> None:
    catalogue = Catalogue(tmp_path, poll_seconds=3600)
    write_card(tmp_path, "new.md", card_text("new-card", "Just saved?"))
    assert title(catalogue, "new-card") is None
    catalogue.reload()
    assert title(catalogue, "new-card") == "Just saved?"


def test_a_reload_reads_an_edit_that_kept_the_files_size_and_time(tmp_path: Path) -> None:
    """Two saves within one tick of the file system's clock leave the same time stamp."""
    path = write_card(tmp_path, "card.md", card_text("live-card", "Before?"))
    catalogue = Catalogue(tmp_path, poll_seconds=0)
    before = path.stat()
    path.write_text(card_text("live-card", "Later!?"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert title(catalogue, "live-card") == "Before?"  # the look at the folder sees no change
    catalogue.reload()
    assert title(catalogue, "live-card") == "Later!?"

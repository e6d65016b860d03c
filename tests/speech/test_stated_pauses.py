"""The pause figures the page states beside a transcript hold on the held-out voices now, within 0.05
(see test_stated_figures.py)."""

from pathlib import Path

import pytest

from app.speech.recogniser import load
from app.speech.stated_figures import PAUSES
from tests.speech.evaluation import HELD_OUT, count_pauses, deck

# Load: many clips transcribed, which a busy machine slows but does not change.
pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]


def test_the_pause_figures_on_the_page_are_measured_on_the_held_out_voices(tmp_path: Path) -> None:
    sentences = [sentence for sentence, _ in deck(1)]
    heard = count_pauses(load(None), HELD_OUT, sentences, tmp_path)["voice"]
    assert heard.clips == PAUSES.clips
    assert heard.found / heard.clips >= PAUSES.found / PAUSES.clips - 0.05, heard
    assert heard.false / heard.clips <= PAUSES.false / PAUSES.clips + 0.05, heard

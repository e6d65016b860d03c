"""The word error rate the page states beside a transcript holds on the held-out voices now, within
0.05: the model decodes a window again at a higher temperature (drawing at random) when its checks
fail, so a few words can change from run to run. The pauses and fillers are checked the same way in
test_stated_pauses.py, test_stated_fillers.py and test_stated_inline_fillers.py: a module each, so
a parallel run measures them side by side."""

from pathlib import Path

import pytest

from app.speech.recogniser import load
from app.speech.stated_figures import HEARING
from tests.speech.evaluation import STATED_VOICES, deck, hear

# Load: many clips transcribed, which a busy machine slows but does not change.
pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]


def test_the_word_error_rate_on_the_page_is_measured_on_held_out_voices(tmp_path: Path) -> None:
    heard = hear(load(None), STATED_VOICES, deck(1), tmp_path)
    assert heard.clips == HEARING.clips
    assert heard.word_error_rate == pytest.approx(HEARING.word_error_rate, abs=0.05)

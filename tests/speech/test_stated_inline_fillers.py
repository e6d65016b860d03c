"""The figures the page states for fillers said inside a sentence hold on the held-out voices now,
within 0.05 (see test_stated_figures.py)."""

from pathlib import Path

import pytest

from app.speech.recogniser import load
from app.speech.stated_figures import FILLERS
from tests.speech.evaluation import FILLERS_HELD_OUT, filler_deck, inline_fillers

# Load: many clips transcribed, which a busy machine slows but does not change.
pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]


def test_the_inline_filler_figures_on_the_page_are_measured_on_held_out_voices(tmp_path: Path) -> None:
    inline = inline_fillers(load(None), FILLERS_HELD_OUT, filler_deck(), tmp_path)
    assert (inline.said, inline.clean) == (FILLERS.inline_said, FILLERS.inline_clean)
    assert inline.counted / inline.said >= FILLERS.inline_counted / FILLERS.inline_said - 0.05, inline
    assert inline.false / inline.clean <= FILLERS.inline_false / FILLERS.inline_clean + 0.05, inline

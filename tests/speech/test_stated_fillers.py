"""The hesitation figures the page states ("um" said alone between short pauses) hold on the held-out
voices now, within 0.05 (see test_stated_figures.py)."""

from pathlib import Path

import pytest

from app.speech.recogniser import load
from app.speech.stated_figures import FILLERS
from tests.speech.evaluation import FILLERS_HELD_OUT, FillerCounts, filler_deck, hesitations

# Load: many clips transcribed, which a busy machine slows but does not change.
pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]


def test_the_hesitation_figures_on_the_page_are_measured_on_held_out_voices(tmp_path: Path) -> None:
    model, chosen = load(None), filler_deck()
    counts = FillerCounts()
    for voice in FILLERS_HELD_OUT:
        counts.add(hesitations(model, voice, [sentence for sentence, _ in chosen], tmp_path))
    assert (counts.clips, counts.clean) == (FILLERS.clips, FILLERS.clean)
    assert counts.found / counts.clips >= FILLERS.found / FILLERS.clips - 0.05, counts
    assert counts.false / counts.clean <= FILLERS.false / FILLERS.clean + 0.05, counts

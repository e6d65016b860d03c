"""The pause figures the page states hold on the held-out voices now, within 0.05: the model decodes
a window again at a higher temperature (drawing at random) when its checks fail, so which words
lie either side of a silence can change from run to run."""

from pathlib import Path

import pytest

from app.speech.pause_figures import PAUSES
from app.speech.recogniser import load
from bench.speech_wer import deck
from tests.speech.pauses import HELD_OUT, count_pauses

# Load: 128 clips transcribed, which a busy machine slows but does not change.
pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]


def test_the_pause_figures_on_the_page_are_measured_on_the_held_out_voices(tmp_path: Path) -> None:
    sentences = [sentence for sentence, _ in deck(1)]
    heard = count_pauses(load(None), HELD_OUT, sentences, tmp_path)["voice"]
    assert heard.clips == PAUSES.clips
    assert heard.found / heard.clips >= PAUSES.found / PAUSES.clips - 0.05, heard
    assert heard.false / heard.clips <= PAUSES.false / PAUSES.clips + 0.05, heard

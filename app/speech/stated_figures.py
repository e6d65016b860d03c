"""The figures the page states beside a transcript and what was heard in it, as the benchmarks
measured them on voices the model and the rules were not tuned on (tests/speech/evaluation.py
computes them; tests/speech/test_stated_*.py recompute them and fail when they drift)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class PauseFigures:
    """On clips of deck sentences with a 2.5 s silence put in mid-sentence, said by voices the
    detector was not tuned on: silences found within 0.5 s, of how many, and pauses reported on the
    same sentences said whole (none was there)."""

    found: int
    clips: int
    false: int

    def sentence(self) -> str:
        return (
            f"Silences heard in the audio, not read off the words' timestamps: on {self.clips} test "
            f"clips of voices this was not tuned on, {self.found} found within 0.5 s, and {self.false} "
            f"reported on {self.clips} without one."
        )


@dataclass(frozen=True)
class HearingFigures:
    """The bundled model on deck sentences said by two espeak-ng voices (held out: its priming was
    chosen on flite's): the pooled word error rate, primed as shipped, over how many clips."""

    word_error_rate: float
    clips: int


@dataclass(frozen=True)
class FillerFigures:
    """Fillers on voices the filler rules were not looked at on (FILLERS_HELD_OUT): of the clips
    with a filler said alone between short silences, how many had one counted; fillers counted on
    as many clean clips (a word of the sentence said alone instead); of the "um"s and "uh"s run
    into the words inline, how many were counted, and fillers counted on the same sentences said
    without them."""

    found: int
    clips: int
    false: int
    clean: int
    inline_counted: int
    inline_said: int
    inline_false: int
    inline_clean: int


PAUSES = PauseFigures(found=62, clips=64, false=0)
HEARING = HearingFigures(word_error_rate=0.286, clips=32)
FILLERS = FillerFigures(
    found=22, clips=32, false=3, clean=32, inline_counted=19, inline_said=64, inline_false=2, inline_clean=32
)

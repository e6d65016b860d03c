"""How well pauses are found, computed once for the benchmark (bench/speech_pauses.py) and the test
that holds the page's figure to it (tests/speech/test_pause_figures.py).

Each sentence is cut at its middle word; the two halves are said by one voice, each without the
engine's own quiet at its ends, with SILENCE_S seconds between them. A pause counts as found when
one is reported starting and ending within WITHIN_S of the silence. The same sentences said whole
count the false pauses. A microphone is never silent: white noise of NOISE_RMS (about -46 dBFS, a
quiet room) is added to every clip."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.speech.decode import decode_recording
from app.speech.delivery import Pause, measure
from app.speech.recogniser import SpeechModel
from tests.speech.clips import joined, speak, speak_espeak

SILENCE_S = 2.5
WITHIN_S = 0.5
NOISE_RMS = 0.005
# (engine, voice). The VAD's settings (app/speech/recogniser.py VOICE_OPTIONS) were chosen on
# flite's voices; espeak-ng's are held out.
TUNED = [("flite", v) for v in ("slt", "rms", "awb", "kal")]
HELD_OUT = [("espeak-ng", v) for v in ("en-us", "en-gb", "en-us+f3", "en-gb-scotland")]


@dataclass
class PauseCounts:
    found: int = 0
    clips: int = 0
    false: int = 0  # pauses reported on the sentences said whole


def said(engine: str, voice: str, text: str, folder: Path) -> Path:
    if engine == "flite":
        return speak(text, voice=voice, folder=folder)
    return speak_espeak(text, voice=voice, folder=folder)


def found(pauses: tuple[Pause, ...], start: float, end: float) -> bool:
    return any(
        abs(p.start - start) <= WITHIN_S and abs(p.start + p.seconds - end) <= WITHIN_S for p in pauses
    )


def count_pauses(
    model: SpeechModel,
    voices: Iterable[tuple[str, str]],
    sentences: list[str],
    folder: Path,
    *,
    each: Callable[[tuple[str, str], dict[str, PauseCounts]], None] = lambda voice, counts: None,
) -> dict[str, PauseCounts]:
    """Counts for the pauses heard in the audio ("voice") and read off the word timestamps, over
    every voice; `each` is told each voice's own counts."""
    rng = np.random.default_rng(7)
    totals = {"voice": PauseCounts(), "word timestamps": PauseCounts()}
    for engine, voice in voices:
        counts = {"voice": PauseCounts(), "word timestamps": PauseCounts()}
        for sentence in sentences:
            words = sentence.split()
            halves = [" ".join(words[: len(words) // 2]), " ".join(words[len(words) // 2 :])]
            parts = [said(engine, voice, half, folder) for half in halves]
            clip, [_, (start, end), _] = joined([0.5, parts[0], SILENCE_S, parts[1], 0.5], folder=folder)
            whole, _ = joined([0.5, said(engine, voice, sentence, folder), 0.5], folder=folder)
            for path in (clip, whole):
                samples = decode_recording(path.read_bytes(), max_seconds=180).samples
                noisy = (samples + rng.normal(0, NOISE_RMS, len(samples))).astype(np.float32)
                heard = model.transcribe(noisy, terms=())
                for method, stretches in (("voice", heard.voice), ("word timestamps", None)):
                    pauses = measure(
                        heard.words, seconds=heard.seconds, terms=(), target_seconds=20, voice=stretches
                    ).pauses
                    tally = counts[method]
                    if path == clip:
                        tally.found += found(pauses, start, end)
                        tally.clips += 1
                    else:
                        tally.false += len(pauses)
        each((engine, voice), counts)
        for method, tally in counts.items():
            totals[method].found += tally.found
            totals[method].clips += tally.clips
            totals[method].false += tally.false
    return totals

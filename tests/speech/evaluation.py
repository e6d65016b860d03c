"""How well the speech model hears, computed once for the benchmarks (bench/speech_pauses.py,
bench/speech_wer.py) and the test that holds the page's figures to them
(tests/speech/test_stated_figures.py).

Sentences: `per_card` of every card's basics and solid answers but the owner's card's (whose
sentences the term rules were looked at on), with that card's terms.

Word error rate: pooled (all errors over all words), primed with the card's terms as shipped.
Fillers: the same sentences with two "um," or "uh," put in, counted as kept when the delivery
counts them.

Pauses: each sentence is cut at its middle word; the two halves are said by one voice, each without the
engine's own quiet at its ends, with SILENCE_S seconds between them. A pause counts as found when
one is reported starting and ending within WITHIN_S of the silence. The same sentences said whole
count the false pauses. A microphone is never silent: white noise of NOISE_RMS (about -46 dBFS, a
quiet room) is added to every clip."""

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import PROJECT_ROOT
from app.content.parser import parse_card
from app.speech.accuracy import spoken_words, word_error_rate
from app.speech.decode import decode_recording
from app.speech.delivery import Pause, measure
from app.speech.recogniser import SpeechModel, card_terms
from tests.factories import OWNER_CARD
from tests.speech.clips import joined, sentences, speak, speak_espeak

SILENCE_S = 2.5
WITHIN_S = 0.5
NOISE_RMS = 0.005
# (engine, voice). The VAD's settings (app/speech/recogniser.py VOICE_OPTIONS) were chosen on
# flite's voices; espeak-ng's are held out.
TUNED = [("flite", v) for v in ("slt", "rms", "awb", "kal")]
HELD_OUT = [("espeak-ng", v) for v in ("en-us", "en-gb", "en-us+f3", "en-gb-scotland")]
# The voices the page's word error rate and filler figures are measured on: two of the held-out.
STATED_VOICES = HELD_OUT[:2]


def deck(per_card: int) -> list[tuple[str, tuple[str, ...]]]:
    """(sentence, its card's terms) for `per_card` sentences of every card but the owner's."""
    chosen = []
    for path in sorted((PROJECT_ROOT / "content").glob("*.md")):
        if path.name == "README.md":
            continue
        card = parse_card(path)
        if card.id == OWNER_CARD:
            continue
        spoken = [s for s in sentences(card) if not any(ch.isdigit() for ch in s)]
        chosen.extend((sentence, card_terms(card)) for sentence in spoken[:per_card])
    return chosen


def with_fillers(sentence: str, rng: random.Random) -> tuple[str, int]:
    words = sentence.split()
    spots = sorted(rng.sample(range(1, len(words)), k=min(2, len(words) - 1)))
    for offset, spot in enumerate(spots):
        words.insert(spot + offset, rng.choice(("um,", "uh,")))
    return " ".join(words), len(spots)


def pooled(pairs: list[tuple[str, str]]) -> float:
    """The word error rate of (said, heard) pairs: all errors over all words said."""
    words = sum(len(spoken_words(said)) for said, _ in pairs)
    return sum(word_error_rate(said, text) * len(spoken_words(said)) for said, text in pairs) / words


@dataclass
class Heard:
    word_error_rate: float
    clips: int
    fillers_kept: int
    fillers_said: int


def hear(
    model: SpeechModel,
    voices: Iterable[tuple[str, str]],
    chosen: list[tuple[str, tuple[str, ...]]],
    folder: Path,
) -> Heard:
    """The pooled word error rate of `chosen` said by every voice, primed, and the fillers kept."""
    rng = random.Random(21)
    pairs, kept, said_fillers = [], 0, 0
    for engine, voice in voices:
        for sentence, terms in chosen:
            samples = decode_recording(
                said(engine, voice, sentence, folder).read_bytes(), max_seconds=180
            ).samples
            pairs.append((sentence, model.transcribe(samples, terms=terms).text))
            text, count = with_fillers(sentence, rng)
            samples = decode_recording(
                said(engine, voice, text, folder).read_bytes(), max_seconds=180
            ).samples
            heard = model.transcribe(samples, terms=terms)
            found = measure(heard.words, seconds=heard.seconds, terms=(), target_seconds=20)
            said_fillers += count
            kept += min(count, sum(n for name, n in found.fillers if name in ("um", "uh")))
    return Heard(round(pooled(pairs), 3), len(pairs), kept, said_fillers)


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

"""How well the speech model hears, computed once for the benchmarks (bench/speech_pauses.py,
bench/speech_wer.py) and the tests that hold the page's figures to them
(tests/speech/test_stated_*.py).

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
from app.speech.delivery import SOUND_FILLERS, Pause, measure
from app.speech.recogniser import SpeechModel, Transcript, card_terms
from tests.factories import OWNER_CARD
from tests.speech.clips import joined, sentences, speak, speak_espeak

SILENCE_S = 2.5
WITHIN_S = 0.5
NOISE_RMS = 0.005
# (engine, voice). The VAD's settings (app/speech/recogniser.py VOICE_OPTIONS) were chosen on
# flite's voices; espeak-ng's are held out.
TUNED = [("flite", v) for v in ("slt", "rms", "awb", "kal")]
HELD_OUT = [("espeak-ng", v) for v in ("en-us", "en-gb", "en-us+f3", "en-gb-scotland")]
# The voices the word error rate the page states is measured on: two of the held-out.
STATED_VOICES = HELD_OUT[:2]
# Fillers heard alone (app/speech/recogniser.py SOUND_*, FILLER_PROMPT): the rules were looked at
# on the first voices; the others are held out, and the page states their figures.
FILLERS_TUNED = [("flite", "slt"), ("flite", "rms"), *HELD_OUT[:2], ("espeak-ng", "en-us+f3")]
FILLERS_HELD_OUT = [
    ("flite", "awb"),
    ("espeak-ng", "en-gb-scotland"),
    ("espeak-ng", "en-029"),
    ("espeak-ng", "en-gb-x-rp"),
]
SAID_FILLERS = ("um", "uh", "erm", "hmm")


def filler_deck() -> list[tuple[str, tuple[str, ...]]]:
    """The sentences the filler figures are measured on: every other card's first (a clip with a
    filler and its clean twin per voice, so the check stays within a few minutes)."""
    return deck(1)[::2]


# A hesitation's silences either side of what is said alone, drawn from this range (seconds).
HESITATION_S = (0.2, 0.6)


def deck_by_card(per_card: int) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """Card id -> (sentence, the card's terms) for `per_card` sentences of every card but the owner's."""
    chosen = {}
    for path in sorted((PROJECT_ROOT / "content").glob("*.md")):
        if path.name == "README.md":
            continue
        card = parse_card(path)
        if card.id == OWNER_CARD:
            continue
        spoken = [s for s in sentences(card) if not any(ch.isdigit() for ch in s)]
        if spoken:  # a card all of whose sentences hold figures has none to say
            chosen[card.id] = [(sentence, card_terms(card)) for sentence in spoken[:per_card]]
    return chosen


def deck(per_card: int) -> list[tuple[str, tuple[str, ...]]]:
    """(sentence, its card's terms) for `per_card` sentences of every card but the owner's."""
    return [pair for pairs in deck_by_card(per_card).values() for pair in pairs]


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


def hear(
    model: SpeechModel,
    voices: Iterable[tuple[str, str]],
    chosen: list[tuple[str, tuple[str, ...]]],
    folder: Path,
) -> Heard:
    """The pooled word error rate of `chosen` said by every voice, primed as shipped."""
    pairs = []
    for engine, voice in voices:
        for sentence, terms in chosen:
            samples = decode_recording(
                said(engine, voice, sentence, folder).read_bytes(), max_seconds=180
            ).samples
            pairs.append((sentence, model.transcribe(samples, terms=terms).text))
    return Heard(round(pooled(pairs), 3), len(pairs))


@dataclass
class InlineCounts:
    said: int = 0  # "um,"s and "uh,"s put into the sentences
    counted: int = 0  # of those, how many the delivery counts
    clean: int = 0  # the same sentences said without them
    false: int = 0  # fillers counted on those


def inline_fillers(
    model: SpeechModel,
    voices: Iterable[tuple[str, str]],
    chosen: list[tuple[str, tuple[str, ...]]],
    folder: Path,
) -> InlineCounts:
    """Of the "um,"s and "uh,"s put into `chosen` (`with_fillers`) and run into the words by each
    voice, how many the delivery counts; and the fillers it counts on the sentences said as written."""
    rng = random.Random(21)
    counts = InlineCounts()
    for engine, voice in voices:
        for sentence, terms in chosen:
            text, count = with_fillers(sentence, rng)
            for words, said_fillers in ((text, count), (sentence, 0)):
                samples = decode_recording(
                    said(engine, voice, words, folder).read_bytes(), max_seconds=180
                ).samples
                heard = fillers_counted(model.transcribe(samples, terms=terms))
                if said_fillers:
                    counts.said += said_fillers
                    counts.counted += min(said_fillers, heard)
                else:
                    counts.clean += 1
                    counts.false += heard
    return counts


def fillers_counted(heard: Transcript) -> int:
    """The "um"-like fillers (not "so", "like"...) the delivery counts in a transcript."""
    found = measure(heard.words, seconds=heard.seconds, terms=(), target_seconds=20, sounds=heard.sounds)
    return sum(n for name, n in found.fillers if name in SOUND_FILLERS)


@dataclass
class FillerCounts:
    clips: int = 0  # with a filler said alone
    found: int = 0  # of those, clips where a filler was counted
    clean: int = 0  # the same, with a word of the sentence said alone instead
    false: int = 0  # fillers counted on the clean clips

    def add(self, other: "FillerCounts") -> None:
        self.clips, self.found = self.clips + other.clips, self.found + other.found
        self.clean, self.false = self.clean + other.clean, self.false + other.false


def hesitations(
    model: SpeechModel, voice: tuple[str, str], chosen: list[str], folder: Path, seed: int = 5
) -> FillerCounts:
    """Each sentence cut at a word drawn at random, with a filler (SAID_FILLERS) said alone between
    silences drawn from HESITATION_S, as a person hesitates; and the clean twin, the word at the cut
    said alone between the same silences, which must not count as a filler. Quiet-room noise on both."""
    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    counts = FillerCounts()
    for sentence in chosen:
        words = sentence.split()
        at = rng.randrange(1, len(words) - 1)
        gaps = [rng.uniform(*HESITATION_S) for _ in range(2)]
        head, tail = " ".join(words[:at]), words[at:]
        filler = rng.choice(SAID_FILLERS)
        for alone, rest, is_filler in ((filler, tail, True), (tail[0], tail[1:], False)):
            parts = [0.3, said(*voice, head, folder), gaps[0], said(*voice, alone, folder), gaps[1]]
            parts += [said(*voice, " ".join(rest), folder), 0.3] if rest else [0.3]
            clip, _ = joined(parts, folder=folder)
            samples = decode_recording(clip.read_bytes(), max_seconds=180).samples
            noisy = (samples + noise.normal(0, NOISE_RMS, len(samples))).astype(np.float32)
            count = fillers_counted(model.transcribe(noisy, terms=()))
            if is_filler:
                counts.clips += 1
                counts.found += count > 0
            else:
                counts.clean += 1
                counts.false += count
    return counts


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

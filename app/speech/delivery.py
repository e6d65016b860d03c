"""How an answer was said, from the words the model heard, when they were said, and where the audio
holds a voice. No model here: plain functions, so every rule is tested on its own.

Filler rule. "um", "uh" (and "umm", "uhh", "uhm") and "basically" always count. The others are
fillers only in some uses, and Whisper's punctuation is what tells them apart:
- "like" counts when a comma follows it ("it is, like, faster"), not as a verb or a comparison;
- "you know" counts when a comma or the end of a sentence follows it ("you know, it overlaps",
  "…, you know."), not in "do you know why" or "you know the answer";
- "so" counts when it opens a sentence or a comma follows it, except "so that", "so far",
  "so much", "so many" and "so long".

Hedges are counted as behaviour, never judged: "I think", "I guess", "I believe", "maybe",
"perhaps", "probably", and "kind of" and "sort of" except after a word that makes them name a kind
("what kind of buffer", "a sort of queue").
"""

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final, Literal

FILLERS = ("um", "uh", "erm", "er", "hmm", "like", "you know", "so", "basically")
# The fillers that are sounds rather than words: a short stretch of voice heard alone (`Sound`) is
# one of these when that is all the model heard in it.
_SOUNDS = {
    "um": re.compile(r"u+h*m+"),
    "uh": re.compile(r"u+h+"),
    "erm": re.compile(r"e+r+m+"),
    "er": re.compile(r"e+r+h*"),
    "hmm": re.compile(r"h*m{2,}|h+m+"),
}
SOUND_FILLERS = tuple(_SOUNDS)
# How far from a sound heard alone the decoder may stamp the filler it wrote for that same sound
# (it put an "Um," heard at 4.19-4.51 s at 4.68 s): one filler, counted once.
WRITTEN_NEAR_S = 0.5
# Words per minute of ordinary conversational speech.
PACE_BAND = (130, 175)
LONG_PAUSE_SECONDS = 2.0
# Each hedge as its words, in the order they are listed.
HEDGES = ("i think", "i guess", "i believe", "maybe", "perhaps", "probably", "kind of", "sort of")
_HEDGE_WORDS = tuple(hedge.split() for hedge in HEDGES)
_KIND_NAMED_AFTER = frozenset(
    {"a", "the", "what", "which", "this", "that", "any", "each", "every", "some", "one"}
)
MOST_USED = 5
# Speech shorter than this tells no pace (two words in 0.18 s would be 666 a minute): such an answer
# has 0 words a minute and the pace TOO_SHORT.
MIN_PACE_SECONDS = 2.0
TOO_SHORT: Final = "too short to tell"
# No one speaks faster; the one bound for the pace an answer stores, exports and imports.
MAX_WORDS_PER_MINUTE = 600
# The target of an answer with no card to take one from (the CLI without --card, a card since gone
# from the deck).
TARGET_WITHOUT_CARD_SECONDS = 60

Pace = Literal["slow", "steady", "fast", "too short to tell"]

_ALWAYS = {"basically": "basically"}
_SO_PHRASES = frozenset({"that", "far", "much", "many", "long"})
_EDGE = re.compile(r"^[^\w]+|[^\w]+$")
_PIECES = re.compile(r"[^\W_]+")
# Common English words that say nothing about the answer, left out of the most-used words.
_STOP_TEXT = """a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does doesn't
    doing don't down during each even every few for from further get gets got had hadn't has hasn't
    have haven't having he her here hers herself him himself his how i if in into is isn't it it's
    its itself just know let's like lot make makes many may me might more most much must my myself
    no nor not now of off on once one only or other ought our ours ourselves out over own really
    same say she should shouldn't so some such than that that's the their theirs them themselves
    then there there's these they they're thing things this those through to too two under until
    up us use used uses using very was wasn't way we we're well were weren't what what's when where
    which while who whom why will with won't would wouldn't yeah yes you you're your yours yourself
    yourselves"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class Word:
    """One word as the model wrote it (with its leading space and punctuation), and when."""

    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Pause:
    after: str  # the word said before it
    before: str  # the word said after it
    start: float
    seconds: float


@dataclass(frozen=True)
class Sound:
    """A short stretch of voice set off by silence, and what the model heard in it played alone
    ("" for nothing it could write): a filler the whole answer's decoding smoothed over shows up here."""

    start: float
    end: float
    heard: str


@dataclass(frozen=True)
class Hedge:
    phrase: str  # as said: "I think", "maybe"
    sentence: str  # the sentence of the transcript it was said in


@dataclass(frozen=True)
class Delivery:
    seconds: float
    target_seconds: int
    words: int
    words_per_minute: float
    pace: Pace
    pauses: tuple[Pause, ...]
    # (filler, times said), in FILLERS order, only those said.
    fillers: tuple[tuple[str, int], ...]
    # (word, times said), most first, words said at least twice.
    most_used: tuple[tuple[str, int], ...]
    terms_used: tuple[str, ...]
    terms_missed: tuple[str, ...]
    hedges: tuple[Hedge, ...] = ()
    hedges_per_minute: float = 0.0
    # Stretches of voice in which the model heard neither a word nor a filler: a cough, a breath,
    # or a filler it could not name.
    unclear_sounds: int = 0

    @property
    def filler_count(self) -> int:
        return sum(count for _, count in self.fillers)

    def to_doc(self) -> dict[str, Any]:
        """As stored with the recording (`Recording.delivery`) and answered by the API."""
        return {
            "seconds": round(self.seconds, 2),
            "target_seconds": self.target_seconds,
            "words": self.words,
            "words_per_minute": round(self.words_per_minute, 1),
            "pace": self.pace,
            "pace_band": list(PACE_BAND),
            "pauses": [
                {
                    "after": pause.after,
                    "before": pause.before,
                    "start": round(pause.start, 2),
                    "end": round(pause.start + pause.seconds, 2),
                    "seconds": round(pause.seconds, 2),
                }
                for pause in self.pauses
            ],
            "fillers": dict(self.fillers),
            "filler_count": self.filler_count,
            "most_used": [[word, count] for word, count in self.most_used],
            "terms_used": list(self.terms_used),
            "terms_missed": list(self.terms_missed),
            "hedges": [{"phrase": hedge.phrase, "sentence": hedge.sentence} for hedge in self.hedges],
            "hedges_per_minute": round(self.hedges_per_minute, 1),
            "unclear_sounds": self.unclear_sounds,
        }


@dataclass(frozen=True)
class _Token:
    text: str
    bare: str
    comma_after: bool
    sentence_end: bool
    start: float
    end: float


def _tokens(words: Sequence[Word]) -> list[_Token]:
    tokens = []
    for word in words:
        text = word.text.strip()
        bare = _EDGE.sub("", text).lower()
        if bare:
            tail = text[len(text.rstrip(".,!?;:…-")) :]
            tokens.append(
                _Token(text, bare, "," in tail, any(mark in tail for mark in ".!?…"), word.start, word.end)
            )
    return tokens


def _filler(tokens: list[_Token], index: int) -> str | None:
    """The filler that starts at tokens[index], if it is one (the module's rule)."""
    token = tokens[index]
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    opens_sentence = index == 0 or tokens[index - 1].sentence_end
    if sound := _sound(token.bare):
        return sound
    if token.bare in _ALWAYS:
        return _ALWAYS[token.bare]
    if token.bare == "like" and token.comma_after:
        return "like"
    if token.bare == "you" and following and following.bare == "know":
        set_off = following.comma_after or following.sentence_end
        return "you know" if set_off else None
    if token.bare == "so":
        phrase = following is not None and following.bare in _SO_PHRASES and not token.comma_after
        return "so" if (opens_sentence or token.comma_after) and not phrase else None
    return None


def _sound(bare: str) -> str | None:
    return next((name for name, pattern in _SOUNDS.items() if pattern.fullmatch(bare)), None)


def _fillers(
    tokens: list[_Token], sounds: Sequence[Sound]
) -> tuple[tuple[tuple[str, int], ...], set[int], int]:
    """The fillers said, in FILLERS order; which tokens they are; and how many unclear sounds.

    A sound heard alone decides what it was: as a filler, it counts unless a filler was written
    within it already; as words alone, no "um" written within it counts (primed with fillers, the
    whole answer's decoding sometimes writes one for a word said alone); as nothing, it is unclear."""
    heard = [
        (sound, [bare for word in sound.heard.split() if (bare := _EDGE.sub("", word).lower())])
        for sound in sounds
    ]
    worded = [sound for sound, bares in heard if bares and all(_sound(bare) is None for bare in bares)]
    counts: Counter[str] = Counter()
    spent: set[int] = set()
    for index, token in enumerate(tokens):
        name = _filler(tokens, index)
        if name in _SOUNDS and any(sound.start <= token.start <= sound.end for sound in worded):
            continue
        if name:
            counts[name] += 1
            spent.update(range(index, index + len(name.split())))
    unclear = 0
    for sound, bares in heard:
        written = any(
            sound.start - WRITTEN_NEAR_S <= tokens[index].start <= sound.end + WRITTEN_NEAR_S
            for index in spent
        )
        if not bares:
            unclear += 1
        elif all(_sound(bare) for bare in bares) and not written:
            counts[_sound(bares[0]) or bares[0]] += 1
    return tuple((name, counts[name]) for name in FILLERS if counts[name]), spent, unclear


def _hedges(tokens: list[_Token]) -> tuple[Hedge, ...]:
    """Each hedge said (the module's rule), with the sentence it was said in."""
    sentences: list[list[_Token]] = [[]]
    for token in tokens:
        sentences[-1].append(token)
        if token.sentence_end:
            sentences.append([])
    found = []
    for sentence in sentences:
        bare = [token.bare for token in sentence]
        text = " ".join(token.text for token in sentence)
        for index in range(len(sentence)):
            for words in _HEDGE_WORDS:
                if bare[index : index + len(words)] != words:
                    continue
                if words[-1] == "of" and index and bare[index - 1] in _KIND_NAMED_AFTER:
                    continue
                said = " ".join(_EDGE.sub("", token.text) for token in sentence[index : index + len(words)])
                found.append(Hedge(said[:1].upper() + said[1:] if words[0] == "i" else said.lower(), text))
    return tuple(found)


def _pieces(text: str) -> list[str]:
    return _PIECES.findall(text.lower())


def _said(term: str, pieces: list[str]) -> bool:
    """Whether the term was said, however it was written: "tf.data" as "TF data", "AUTOTUNE" as
    "auto tune", "TPU" as "TPUs", "input pipelines" as "input pipeline" (runs of the transcript's
    pieces are joined and compared)."""
    key = "".join(_pieces(term))
    if not key:
        return False
    wanted = {key, key + "s", key + "es"}
    if len(key) > 3 and key.endswith("s"):
        wanted.add(key[:-1])
    if key.endswith(("ses", "xes", "ches", "shes")):
        wanted.add(key[:-2])
    longest = len(_pieces(term)) + 3
    for start in range(len(pieces)):
        joined = ""
        for piece in pieces[start : start + longest]:
            joined += piece
            if joined in wanted:
                return True
            if len(joined) > len(key) + 2:
                break
    return False


# The words of a CamelCase name: "TFRecordDataset" is TF, Record, Dataset.
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def spoken_aloud(term: str) -> bool:
    """Whether a person would say the term as a word or two: code names with an underscore or a
    call's brackets, or of three or more CamelCase words ("TFRecordDataset"), are not (they are
    listed when said, never as not said)."""
    if "_" in term or "(" in term:
        return False
    return not any(len(_CAMEL_PARTS.findall(word)) >= 3 for word in re.split(r"[\s.\-]+", term))


def _pace(words_per_minute: float) -> Pace:
    low, high = PACE_BAND
    if not words_per_minute:
        return TOO_SHORT
    return "slow" if words_per_minute < low else "fast" if words_per_minute > high else "steady"


def _pauses(tokens: list[_Token], voice: Sequence[tuple[float, float]] | None) -> tuple[Pause, ...]:
    """The silences over LONG_PAUSE_SECONDS between two words: between the stretches of `voice`
    where it is known, else between the words' timestamps."""
    if not voice:  # not listened to, or the VAD heard nothing the model wrote words for
        gaps = [(before.end, after.start) for before, after in pairwise(tokens)]
    else:
        gaps = [(before[1], after[0]) for before, after in pairwise(sorted(voice))]
    pauses = []
    for start, end in gaps:
        # By where a word ends: Whisper stretches the words either side of a silence over it, the
        # one after it back to the end of the one before.
        said_before = [token for token in tokens if token.end <= end]
        said_after = [token for token in tokens if token.end > end]
        if end - start > LONG_PAUSE_SECONDS and said_before and said_after:
            pauses.append(Pause(said_before[-1].bare, said_after[0].bare, start, end - start))
    return tuple(pauses)


def measure(
    words: Sequence[Word],
    *,
    seconds: float,
    terms: Sequence[str],
    target_seconds: int,
    voice: Sequence[tuple[float, float]] | None = None,
    sounds: Sequence[Sound] = (),
) -> Delivery:
    """The delivery of one answer: `words` as the model heard them, `seconds` the recording's length,
    `voice` the (start, end) stretches where the audio holds a voice, when it was listened to.

    Words per minute are counted over the time spent speaking (first word to last), so the silence
    before pressing stop does not slow the pace, and only over MIN_PACE_SECONDS or more. Pauses are
    the silences between the stretches of voice: Whisper stretches a word's timestamps over much of
    the silence after it, so the gaps between its words miss most pauses (bench/speech_pauses.py).
    `sounds` are the short stretches of voice heard alone, where fillers the words miss are found
    (bench/speech_fillers.py)."""
    tokens = _tokens(words)
    span = tokens[-1].end - tokens[0].start if tokens else 0.0
    per_minute = min(len(tokens) / span * 60, MAX_WORDS_PER_MINUTE) if span >= MIN_PACE_SECONDS else 0.0
    pauses = _pauses(tokens, voice)
    hedges = _hedges(tokens)
    fillers, spent, unclear = _fillers(tokens, sounds)
    content = Counter(
        token.bare
        for index, token in enumerate(tokens)
        if index not in spent and token.bare not in STOP_WORDS and any(ch.isalpha() for ch in token.bare)
    )
    order = {token.bare: index for index, token in reversed(list(enumerate(tokens)))}
    most_used = sorted(
        ((word, count) for word, count in content.items() if count >= 2),
        key=lambda item: (-item[1], order[item[0]]),
    )[:MOST_USED]
    pieces = [piece for token in tokens for piece in _pieces(token.bare)]
    unique_terms = list(dict.fromkeys(terms))
    used = tuple(term for term in unique_terms if _said(term, pieces))
    return Delivery(
        seconds=seconds,
        target_seconds=target_seconds,
        words=len(tokens),
        words_per_minute=per_minute,
        pace=_pace(per_minute),
        pauses=pauses,
        fillers=fillers,
        most_used=tuple(most_used),
        terms_used=used,
        terms_missed=tuple(term for term in unique_terms if term not in used and spoken_aloud(term)),
        hedges=hedges,
        hedges_per_minute=len(hedges) / span * 60 if span >= MIN_PACE_SECONDS else 0.0,
        unclear_sounds=unclear,
    )

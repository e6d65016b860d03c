"""How an answer is read for coverage: cut into the sentences that are scored, each known to claim
something or only name terms, to deny what it names or not; and the lexical score of a sentence
against a card's text (tf-idf cosine over stemmed words, idf from the card's own sentences).
Plain functions on strings and a card: no model, no I/O."""

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from app.content.cards import Card

# Words a window holds when an answer has no sentence marks (a transcript) or a sentence runs on.
WINDOW = 12
SHOWN_WHOLE = 40
SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
WORD = re.compile(r"\S+")
STOPWORDS = frozenset(
    re.findall(
        r"[a-z]+",
        """a an the and or but if then so of to in on at by for with from as is are was were be been being
        it its this that these those there their they them you your i we our he she his her not no do does
        did doing done can could will would should may might must has have had having just like um uh yeah
        okay so also very really about into over than only one each every which what when where while who
        how why all any some more most other such own same too""",
    )
)
# Words that turn a sentence against what it mentions ("prefetch does not add threads"), spelled
# as written and as a recogniser writes them (no apostrophe).
NEGATIONS = frozenset(
    re.findall(
        r"[a-z]+",
        """not no never nor isn isnt doesn doesnt don dont aren arent wasn wasnt won wont cannot cant
        nothing none neither nobody myth wrong false mistake""",
    )
)
# The most words a label before a colon has.
LABEL_LONGEST = 6
# A card has tens of texts; a caller weighing other texts on the right keeps no more than this.
CARD_VECTORS_KEPT = 1024
SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "es", "s", "ly")


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


# Every answer is stemmed word by word, and people use the same few thousand words.
@functools.lru_cache(maxsize=2**16)
def stem(word: str) -> str:
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> list[str]:
    return [stem(word) for word in words(text) if word not in STOPWORDS]


@dataclass(frozen=True)
class Unit:
    """A stretch of an answer that is scored on its own: its words as scored (without backticks)
    and where it stands in the answer as written, `text[start:end]`, to show it as evidence."""

    text: str
    start: int
    end: int


def units(text: str) -> list[Unit]:
    """The answer's sentences, each scored whole when short (2 * WINDOW words). A longer one (or a
    transcript, which has no marks) is cut into its clauses (`_clauses`), a clause that still runs
    on into overlapping windows of WINDOW words, half a window apart, each scored alone. What a
    stretch shows as evidence is its whole sentence when a reader takes that in at once
    (SHOWN_WHOLE words), else its whole clause, else (a clause that runs on) its window."""
    found: list[Unit] = []
    bounds = [0, *(at for match in SENTENCE_END.finditer(text) for at in match.span()), len(text)]
    for begin, end in zip(bounds[::2], bounds[1::2], strict=True):
        said = [(match.start() + begin, match.end() + begin) for match in WORD.finditer(text[begin:end])]
        if len(said) <= 2 * WINDOW:
            spans = [(0, len(said), 0, len(said))] if said else []
        else:
            whole = (0, len(said)) if len(said) <= SHOWN_WHOLE else None
            spans = [
                (a, b, *(whole or (c, d))) for part in _clauses(text, said) for a, b, c, d in _windows(*part)
            ]
        found += [
            Unit(
                " ".join(text[said[a][0] : said[b - 1][1]].replace("`", "").split()),
                said[c][0],
                said[d - 1][1],
            )
            for a, b, c, d in spans
        ]
    return found


# The words people begin a new thought with, where speech without marks has a clause break.
CLAUSE_WORDS = frozenset(
    {"so", "but", "because", "um", "uh", "erm", "okay", "anyway", "well", "basically", "whereas"}
)


def _clauses(text: str, said: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The word ranges of a long sentence's clauses: a clause ends at a comma or a semicolon, or
    before a word a new thought starts with; one of fewer than 4 words joins the next."""
    parts, start = [], 0
    for at in range(1, len(said) + 1):
        ends = at == len(said) or text[said[at - 1][0] : said[at - 1][1]].endswith((",", ";"))
        ends = ends or text[said[at][0] : said[at][1]].lower() in CLAUSE_WORDS
        if ends and (at - start >= 4 or at == len(said)):
            parts.append((start, at))
            start = at
    return parts


def _windows(first: int, last: int) -> list[tuple[int, int, int, int]]:
    """(scored from, to, shown from, to) for the words first..last: whole when short, else in
    windows, each shown as the whole clause when a reader takes it in at once."""
    if last - first <= 2 * WINDOW:
        return [(first, last, first, last)]
    step = WINDOW // 2
    shown = (first, last) if last - first <= SHOWN_WHOLE else None
    return [
        (at, min(at + WINDOW, last), *(shown or (at, min(at + WINDOW, last))))
        for at in range(first, last - step, step)
    ]


def sentences(text: str) -> list[str]:
    return [unit.text for unit in units(text)]


# A model answer's claims end where its sentences do; a colon or semicolon only joins clauses.
CLAIM_END = re.compile(r"(?<=[.!?])\s+")
# A sentence of this many words or fewer claims nothing alone: a label ("Two causes:") or a bare
# answer ("No.") that the sentence after it explains.
LABEL_WORDS = 3


def whole_sentences(text: str) -> list[str]:
    """The claims of a model answer whose lines are its paragraphs and list items (marked "- "),
    each sentence whole however long: a lead-in (ending in a colon, or of a few words) joins the
    sentence after it, or each item of the list after it unless it only labels the list; a list
    item is one claim. A few words left at the end join the claim before them."""
    claims: list[str] = []
    lead, introducing = "", None  # `introducing`: what leads in to each item of the list being read
    for line in text.splitlines():
        said = " ".join(line.replace("`", "").split())
        if said.startswith("- "):
            if introducing is None:
                introducing, lead = (lead if len(lead.split()) > LABEL_WORDS else ""), ""
            claims.append(f"{introducing} {said[2:]}".strip())
            continue
        introducing = None
        for sentence in filter(None, CLAIM_END.split(said)):
            sentence = f"{lead} {sentence}".strip()
            if sentence.endswith(":") or len(sentence.split()) <= LABEL_WORDS:
                lead = sentence
            else:
                lead = ""
                claims.append(sentence)
    if lead and not lead.endswith(":"):  # one that ends in a colon introduced what is not words (code)
        claims[-1:] = [" ".join([*claims[-1:], lead])]
    return claims


def claims_nothing(unit: str) -> bool:
    """A label before a colon ("reshuffle_each_iteration and seed:", a few words; a whole clause
    before one claims) or a run of terms between commas ("deterministic, decode, epoch 2"): it
    names, it does not claim."""
    segments = [segment.split() for segment in unit.split(",") if segment.strip()]
    listed = len(segments) >= 3 and sum(map(len, segments)) / len(segments) <= 2.5
    return (unit.rstrip().endswith(":") and len(unit.split()) <= LABEL_LONGEST) or listed


def denies(text: str) -> bool:
    return bool(NEGATIONS & set(words(text)))


def names(text: str, point: str) -> bool:
    """Whether a text names a point: a distinctive word (five letters or more) of the point, by
    its first five letters, as the labelled set's own check of keyword-stuffed answers has it."""
    distinctive = {word[:5] for word in words(point) if len(word) >= 5}
    return bool(distinctive & {word[:5] for word in words(text) if len(word) >= 5})


def card_sentences(card: Card) -> list[str]:
    parts = [card.basics.plain, card.solid.plain, card.deep_dive.plain, *(p.plain for p in card.points)]
    parts += [note for p in card.points for note in (p.explanation, *p.phrasings) if note]
    parts += [entry.title.plain for entry in (*card.pitfalls, *card.truths, *card.follow_ups)]
    return [sentence for part in parts for sentence in sentences(part)]


class Lexical:
    """Cosine of tf-idf bags of stemmed words, idf over the sentences of one card, so a word every
    sentence of the card uses ("dataset") counts for little next to one only a point uses."""

    def __init__(self, card: Card) -> None:
        documents = [set(stems(sentence)) for sentence in card_sentences(card)]
        df = Counter(word for document in documents for word in document)
        self._idf = {word: math.log((len(documents) + 1) / (count + 1)) + 1 for word, count in df.items()}
        self._unseen = math.log(len(documents) + 1) + 1
        # The card's own texts, weighed again against every answer otherwise.
        self._card_vectors: dict[str, dict[str, float]] = {}

    def weight(self, word: str) -> float:
        return self.stem_weight(stem(word))

    def stem_weight(self, stemmed: str) -> float:
        return self._idf.get(stemmed, self._unseen)

    def _vector(self, text: str) -> dict[str, float]:
        vector = {word: n * self._idf.get(word, self._unseen) for word, n in Counter(stems(text)).items()}
        norm = math.sqrt(sum(value * value for value in vector.values())) or 1.0
        return {word: value / norm for word, value in vector.items()}

    def _card_vector(self, text: str) -> dict[str, float]:
        vector = self._card_vectors.get(text)
        if vector is None:
            vector = self._vector(text)
            if len(self._card_vectors) < CARD_VECTORS_KEPT:
                self._card_vectors[text] = vector
        return vector

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> list[list[float]]:
        """The score of every text on the left against every text of the card on the right, 0 to 1."""
        others = [self._card_vector(text) for text in right]
        return [
            [sum(value * other.get(word, 0.0) for word, value in vector.items()) for other in others]
            for vector in map(self._vector, left)
        ]

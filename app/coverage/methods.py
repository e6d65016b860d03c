"""How an answer is read for coverage: cut into the sentences that are scored, each known to claim
something or only name terms, to deny what it names or not; and the lexical score of a sentence
against a card's text (tf-idf cosine over stemmed words, idf from the card's own sentences).
Plain functions on strings and a card: no model, no I/O."""

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
        myth wrong false mistake""",
    )
)
SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "es", "s", "ly")


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


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
    """The answer's sentences, a long one (or a transcript, which has no marks) as overlapping
    windows of WINDOW words, half a window apart, so a claim across one window's edge is whole in
    the next. A window of a sentence a reader takes in at once (SHOWN_WHOLE words) stands for the
    whole sentence as evidence; in a longer one, for its own words."""
    found: list[Unit] = []
    bounds = [0, *(at for match in SENTENCE_END.finditer(text) for at in match.span()), len(text)]
    for begin, end in zip(bounds[::2], bounds[1::2], strict=True):
        said = [(match.start() + begin, match.end() + begin) for match in WORD.finditer(text[begin:end])]
        if not said:
            continue
        if len(said) <= 2 * WINDOW:
            spans = [(said[0][0], said[-1][1])]
        else:
            step = WINDOW // 2
            spans = [
                (said[first][0], said[min(first + WINDOW, len(said)) - 1][1])
                for first in range(0, len(said) - step, step)
            ]
        sentence = (said[0][0], said[-1][1]) if len(said) <= SHOWN_WHOLE else None
        found += [Unit(" ".join(text[a:b].replace("`", "").split()), *(sentence or (a, b))) for a, b in spans]
    return found


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
    """A label before a colon ("reshuffle_each_iteration and seed:") or a run of terms between
    commas ("deterministic, decode, epoch 2"): it names, it does not claim."""
    segments = [segment.split() for segment in unit.split(",") if segment.strip()]
    listed = len(segments) >= 3 and sum(map(len, segments)) / len(segments) <= 2.5
    return unit.rstrip().endswith(":") or listed


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

    def weight(self, word: str) -> float:
        return self._idf.get(stem(word), self._unseen)

    def _vector(self, text: str) -> dict[str, float]:
        vector = {word: n * self._idf.get(word, self._unseen) for word, n in Counter(stems(text)).items()}
        norm = math.sqrt(sum(value * value for value in vector.values())) or 1.0
        return {word: value / norm for word, value in vector.items()}

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> list[list[float]]:
        """The score of every text on the left against every text on the right, 0 to 1."""
        others = [self._vector(text) for text in right]
        return [
            [sum(value * other.get(word, 0.0) for word, value in vector.items()) for other in others]
            for vector in map(self._vector, left)
        ]

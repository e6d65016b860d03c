"""Build the entailment pairs the claims model is trained on, from the training cards of the deck
and the labelled answers of the tuning cards, and write them to pairs.jsonl beside this file.

    python training/claims/pairs.py

Each pair is (premise: a stretch of an answer, hypothesis: an answer point or a pitfall's claim)
with a label, entail, neutral or contradict, and the cards it was built from (so a validation
split can leave whole cards out). Deterministic: one seeded random generator, cards and items
walked in a fixed order.

Only the ten training cards below are read. The held-out cards (keras-steps-per-execution,
tf-data-from-generator, tf-data-interleave-reads, tf-function-retracing), the blind cards and
tests/coverage/blind/ are never read here."""

import json
import random
import re
from collections import Counter
from pathlib import Path

from app import PROJECT_ROOT
from app.content.catalogue import load
from app.coverage.methods import STOPWORDS, Lexical, units, whole_sentences

HERE = Path(__file__).parent
OUT = HERE / "pairs.jsonl"
# The third round's extra pairs: true sentences that echo a pitfall's words, and bare term lists.
ECHO_OUT = HERE / "echo.jsonl"
# Sentences written by hand for the training cards, each labelled against one point or pitfall
# (or "*": a keyword salad, neutral to all of them): paraphrases, negations, reversed relations,
# salads, misconceptions and true echoes of pitfalls.
WRITTEN = HERE / "written"
WRITTEN_OUT = HERE / "written.jsonl"
SEED = 20240611

TUNING = (
    "tf-data-prefetch-last",
    "tf-data-shuffle-buffer",
    "tf-data-cache-placement",
    "tf-data-vectorized-map",
    "tf-data-map-determinism",
)
UNLABELLED = (
    "mixed-precision-host-to-device",
    "tf-data-bad-records",
    "tf-data-service",
    "tf-distribute-input-sharding",
    "tf-profiler-input-bound",
)
TRAINING_CARDS = TUNING + UNLABELLED
LABELLED = PROJECT_ROOT / "tests" / "coverage" / "labelled"

ENTAIL, NEUTRAL, CONTRADICT = "entail", "neutral", "contradict"

# Which answer point each pitfall contradicts, by position on its card, read off the pitfall's body
# (which says why the claim is wrong). A pitfall whose body refutes no single point is left out.
PITFALL_POINT: dict[str, dict[int, int]] = {
    "tf-data-prefetch-last": {0: 3, 1: 4},
    "tf-data-shuffle-buffer": {0: 2, 1: 1, 2: 3, 3: 4},
    "tf-data-cache-placement": {0: 1, 1: 4, 2: 3},
    "tf-data-vectorized-map": {1: 2, 2: 3, 4: 2},
    "tf-data-map-determinism": {0: 2, 1: 3, 2: 0, 3: 4},
    "mixed-precision-host-to-device": {0: 0, 2: 3, 3: 2, 4: 1},
    "tf-data-bad-records": {0: 1, 1: 3, 2: 3, 3: 2, 4: 0},
    "tf-data-service": {0: 2, 1: 3, 2: 4, 4: 1},
    "tf-distribute-input-sharding": {0: 0, 1: 3, 3: 1, 4: 3},
    "tf-profiler-input-bound": {2: 1, 3: 1},
}

FILLERS = ("um", "uh", "like", "you know", "so", "basically", "i mean")
# Verbs in the third person that a plain negation turns into "doesn't <verb>".
VERBS = [
    "goes",
    "holds",
    "runs",
    "keeps",
    "makes",
    "gives",
    "needs",
    "takes",
    "adds",
    "draws",
    "outputs",
    "drops",
    "catches",
    "fills",
    "decides",
    "sets",
    "turns",
    "pays",
    "calls",
    "splits",
    "shards",
    "writes",
    "reads",
    "breaks",
    "costs",
    "smooths",
    "drains",
    "hides",
    "mixes",
    "emits",
    "wins",
    "lets",
    "uses",
    "applies",
    "moves",
    "means",
    "stays",
    "comes",
    "removes",
    "shows",
    "names",
    "becomes",
    "prepares",
    "decouples",
    "overlaps",
    "parallelizes",
    "fixes",
    "speeds",
    "helps",
    "happens",
    "works",
    "returns",
    "replays",
    "records",
    "skips",
    "ignores",
    "discards",
    "throws",
    "guarantees",
    "wraps",
    "logs",
    "loses",
    "retries",
    "stores",
    "casts",
    "copies",
    "lives",
    "sits",
    "divides",
    "follows",
    "expects",
]
AUXILIARIES = {
    "is": "is not",
    "are": "are not",
    "can": "cannot",
    "must": "must not",
    "will": "will not",
    "should": "should not",
    "does": "does not",
    "do": "do not",
    "was": "was not",
    "has to": "does not have to",
    "have to": "do not have to",
}
SUBORDINATE = {"that", "which", "who", "when", "if", "where", "because", "while", "whose", "so"}
SWAPS = [
    ("before", "after"),
    ("first", "last"),
    ("earlier", "later"),
    ("above", "below"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("faster", "slower"),
    ("more", "fewer"),
    ("start", "end"),
    ("beginning", "end"),
    ("upstream", "downstream"),
    ("max", "min"),
]

SALAD = (
    "{a} and {b} are really about {c}; the {d} is what ties it together.",
    "When you think about {a}, {b} and {c} all come into play.",
    "It's all about {a}, {b}, and the {c}.",
    "The key words here are {a} and {b}, and of course {c}.",
    "{a} is something I'd mention, along with {b} and {c}.",
    "You have to consider the {a} and the {b} in relation to {c}.",
    "In my experience {a} matters, {b} matters, and {c} matters a lot.",
    "there's {a} and {b} and like {c} you know",
    "So {a}, right, and then {b} with the {c}, that's the whole story.",
    "{a} is important for {b}, and {c} is important for {d}.",
    "I would talk about {a} first, then {b}, then {c}.",
    "Everything here comes down to {a} and {b}.",
)
ASSERT = (
    "{s}",
    "I'm pretty sure {s}.",
    "The thing is, {s}.",
    "{S}, as far as I know.",
    "Basically {s}.",
    "In practice {s}, so you don't need to worry about it.",
    "Well, {s}.",
    "From what I've seen, {s}.",
)
FRAMES = (
    "{S}, and that's the main reason.",
    "So basically, {s}.",
    "What happens is {s}.",
    "The way I'd put it: {s}.",
    "{S}, which is the key point here.",
    "In an interview I'd say that {s}.",
    "Right, so {s}.",
    "The important part is that {s}.",
)
NEGATE = (
    "It is not true that {s}.",
    "It's a myth that {s}.",
    "People say {s}, but that's wrong.",
    "A common mistake is to think that {s}.",
    "I don't think {s}; that is false.",
    "No, it's false that {s}.",
    "Contrary to popular belief, it is not the case that {s}.",
)


def lower_first(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def upper_first(text: str) -> str:
    """Capitalised, unless it starts with code (an identifier with _ . or parentheses)."""
    head = text.split(" ", 1)[0]
    if any(mark in head for mark in "_.()=") and not head.endswith("."):
        return text
    return text[:1].upper() + text[1:]


def transcript(text: str, rng: random.Random) -> str:
    """As a recogniser writes speech: lower case, no punctuation, a few fillers."""
    said = re.sub(r"[^\w\s'+-]", " ", text.lower()).replace("'", "")
    tokens = said.split()
    out = []
    for token in tokens:
        if rng.random() < 0.08:
            out.append(rng.choice(FILLERS))
        out.append(token)
    return " ".join(out)


def negate_verb(sentence: str) -> str | None:
    """The sentence with its first verb negated ("prefetch goes last" -> "prefetch doesn't go last"),
    or None when no verb is found."""
    tokens = sentence.rstrip(".").split()
    for i, token in enumerate(tokens[:10]):
        low = token.lower()
        if i + 1 < len(tokens) and f"{low} {tokens[i + 1].lower()}" in AUXILIARIES:
            return (
                " ".join([*tokens[:i], AUXILIARIES[f"{low} {tokens[i + 1].lower()}"], *tokens[i + 2 :]]) + "."
            )
        if i > 0 and tokens[i - 1].lower() in SUBORDINATE:
            return None
        if low in AUXILIARIES and i > 0:
            if i + 1 < len(tokens) and tokens[i + 1].lower() in ("not", "no", "never"):
                return None
            return " ".join([*tokens[:i], AUXILIARIES[low], *tokens[i + 1 :]]) + "."
        if low in VERBS and i > 0:
            base = low[:-2] if low.endswith(("ches", "shes", "xes", "sses", "oes")) else low[:-1]
            base = {"appli": "apply", "copi": "copy", "retri": "retry", "do": "do", "go": "go"}.get(
                base, base
            )
            if low.endswith("ies"):
                base = low[:-3] + "y"
            return " ".join([*tokens[:i], rng_choice_doesnt(i), base, *tokens[i + 1 :]]) + "."
    return None


def rng_choice_doesnt(i: int) -> str:
    return "doesn't" if i % 2 else "does not"


def swap_relations(sentence: str) -> str | None:
    """The sentence with its ordering or size relations reversed, or None when it has none."""
    pattern = re.compile(r"\b(" + "|".join(w for pair in SWAPS for w in pair) + r")\b", re.IGNORECASE)
    other = {a: b for a, b in SWAPS} | {b: a for a, b in SWAPS if b not in {x for x, _ in SWAPS}}
    if not pattern.search(sentence):
        return None

    def flip(match: re.Match[str]) -> str:
        word = match.group(0)
        swapped = other.get(word.lower(), word)
        return upper_first(swapped) if word[:1].isupper() else swapped

    return pattern.sub(flip, sentence)


def swap_sides(sentence: str) -> str | None:
    """'A before B' said as 'B before A'."""
    match = re.search(r"\b([\w.()]+) (before|after) ([\w.()]+)", sentence)
    if not match or match.group(1).lower() in STOPWORDS or match.group(3).lower() in STOPWORDS:
        return None
    return (
        sentence[: match.start()]
        + f"{match.group(3)} {match.group(2)} {match.group(1)}"
        + sentence[match.end() :]
    )


def distinctive(text: str) -> list[str]:
    found = []
    for word in re.findall(r"[A-Za-z_][\w.]*[\w]", text):
        low = word.lower()
        if len(low) >= 5 and low not in STOPWORDS and low not in found:
            found.append(low)
    return found


class Builder:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.pairs: list[dict[str, object]] = []
        self.seen: set[tuple[str, str]] = set()

    def add(self, premise: str, hypothesis: str, label: str, cards: tuple[str, ...], source: str) -> None:
        premise = " ".join(premise.split())
        if not premise or (premise, hypothesis) in self.seen:
            return
        self.seen.add((premise, hypothesis))
        self.pairs.append(
            {
                "premise": premise,
                "hypothesis": hypothesis,
                "label": label,
                "cards": sorted(set(cards)),
                "source": source,
            }
        )

    def add_spoken(
        self,
        premise: str,
        hypothesis: str,
        label: str,
        cards: tuple[str, ...],
        source: str,
        chance: float = 0.35,
    ) -> None:
        """The pair as written and, some of the time, as a transcript of it said aloud."""
        self.add(premise, hypothesis, label, cards, source)
        if self.rng.random() < chance:
            self.add(transcript(premise, self.rng), hypothesis, label, cards, source + "-spoken")


def main() -> None:
    deck = load(PROJECT_ROOT / "content").cards
    cards = {card_id: deck[card_id] for card_id in TRAINING_CARDS}
    b = Builder()
    rng = b.rng
    all_points = [(cid, p) for cid, c in cards.items() for p in c.points]

    for cid, card in cards.items():
        one = (cid,)
        points, pitfalls = card.points, card.pitfalls
        lexical = Lexical(card)
        paired = PITFALL_POINT[cid]
        by_point: dict[int, list[int]] = {}
        for f, p in paired.items():
            by_point.setdefault(p, []).append(f)

        # The statements each point is made of: its explanation and its accepted phrasings.
        statements = {i: [s for s in (p.explanation, *p.phrasings) if s] for i, p in enumerate(points)}

        # ENTAIL: a point's explanation and phrasings; the point's own words.
        for i, point in enumerate(points):
            for s in statements[i]:
                b.add_spoken(s, point.plain, ENTAIL, one, "point-statement")
                for frame in rng.sample(FRAMES, 3):
                    b.add_spoken(
                        frame.format(s=lower_first(s), S=upper_first(lower_first(s))),
                        point.plain,
                        ENTAIL,
                        one,
                        "point-statement-framed",
                        chance=0.25,
                    )
            b.add(upper_first(point.plain) + ".", point.plain, ENTAIL, one, "point-self")

        # ENTAIL: sentences of the model answer (basics and solid) that state exactly one point,
        # picked lexically with a wide margin; a sentence close to two points is left out.
        references = [[p.plain, *statements[i]] for i, p in enumerate(points)]
        model = [
            " ".join(part.replace("`", "").split())
            for text in (card.basics.plain, card.solid.plain)
            for part in re.split(r"(?<=[.!?])\s+", text)
            if part.strip()
        ]
        for sentence in model:
            scores = [max(r[0] for r in lexical.similarity(refs, [sentence])) for refs in references]
            order = sorted(range(len(points)), key=lambda j: -scores[j])
            best, second = scores[order[0]], scores[order[1]]
            if best >= 0.4 and best - second >= 0.2:
                b.add_spoken(sentence, points[order[0]].plain, ENTAIL, one, "model-sentence")
                for j in order[2:]:
                    if scores[j] < 0.05:
                        b.add(sentence, points[j].plain, NEUTRAL, one, "model-sentence-other")

        # ENTAIL: a pitfall's own claim, lightly reworded; NEUTRAL: against the card's other pitfalls.
        for f, pitfall in enumerate(pitfalls):
            claim = pitfall.title.plain
            for template in rng.sample(ASSERT, 4):
                said = template.format(s=lower_first(claim), S=upper_first(lower_first(claim)))
                b.add_spoken(upper_first(said), claim, ENTAIL, one, "pitfall-reworded")
            for g, other in enumerate(pitfalls):
                if g != f:
                    b.add(claim, other.title.plain, NEUTRAL, one, "pitfall-other-pitfall")

        # CONTRADICT: a pitfall against the point it contradicts, and the point's statements
        # against the pitfall.
        for f, p in paired.items():
            claim, point = pitfalls[f].title.plain, points[p]
            b.add_spoken(upper_first(claim) + ".", point.plain, CONTRADICT, one, "pitfall-vs-point")
            for template in rng.sample(ASSERT, 2):
                said = template.format(s=lower_first(claim), S=upper_first(lower_first(claim)))
                b.add(upper_first(said), point.plain, CONTRADICT, one, "pitfall-vs-point")
            for s in statements[p]:
                b.add_spoken(s, claim, CONTRADICT, one, "point-vs-pitfall")
        # NEUTRAL: a pitfall against the points it does not touch (only where the pairing is known).
        for f, pitfall in enumerate(pitfalls):
            for i, point in enumerate(points):
                if f in paired and paired[f] != i:
                    b.add(
                        upper_first(pitfall.title.plain) + ".",
                        point.plain,
                        NEUTRAL,
                        one,
                        "pitfall-vs-other-point",
                    )

        # CONTRADICT: the pitfall's body (why it is wrong) and negations of the claim, including
        # correct sentences that echo its words ("AUTOTUNE tunes the buffer size at run time; it is
        # not a fixed size" against "AUTOTUNE is a fixed buffer size, not one tuned at run time").
        for pitfall in pitfalls:
            claim = pitfall.title.plain
            body = whole_sentences(pitfall.body.plain)
            b.add(pitfall.body.plain, claim, CONTRADICT, one, "pitfall-body")
            b.add_spoken(body[0], claim, CONTRADICT, one, "pitfall-body-first")
            for template in rng.sample(NEGATE, 3):
                b.add_spoken(template.format(s=lower_first(claim)), claim, CONTRADICT, one, "pitfall-negated")
            negated = negate_verb(upper_first(claim))
            if negated:
                b.add_spoken(negated, claim, CONTRADICT, one, "pitfall-negated-verb")
                b.add(f"{negated[:-1]}; {lower_first(body[0])}.", claim, CONTRADICT, one, "pitfall-echo")
            b.add(
                f"Some people think {lower_first(claim)}, but {lower_first(body[0])}.",
                claim,
                CONTRADICT,
                one,
                "pitfall-rejected",
            )
            # The body's other sentences against the other pitfalls: neutral.
            for other in pitfalls:
                if other is not pitfall:
                    b.add(body[0], other.title.plain, NEUTRAL, one, "pitfall-body-other")

        # CONTRADICT: negations and reversed relations of a point's statements.
        for i, point in enumerate(points):
            for s in statements[i]:
                for template in rng.sample(NEGATE, 2):
                    b.add_spoken(
                        template.format(s=lower_first(s)), point.plain, CONTRADICT, one, "point-negated"
                    )
                negated = negate_verb(upper_first(s))
                if negated:
                    b.add_spoken(negated, point.plain, CONTRADICT, one, "point-negated-verb")
                for swapped in (swap_relations(s), swap_sides(s)):
                    if swapped and swapped != s:
                        b.add_spoken(swapped, point.plain, CONTRADICT, one, "point-reversed")
            negated = negate_verb(upper_first(point.plain))
            if negated:
                b.add(negated, point.plain, CONTRADICT, one, "point-plain-negated")
            swapped = swap_relations(point.plain)
            if swapped:
                b.add(upper_first(swapped) + ".", point.plain, CONTRADICT, one, "point-plain-reversed")

        # NEUTRAL: other points of the same card; points of other cards.
        for i, point in enumerate(points):
            for j, other in enumerate(points):
                if i != j:
                    for s in statements[i][:2]:
                        b.add(s, other.plain, NEUTRAL, one, "other-point")
            for ocid, other in rng.sample([x for x in all_points if x[0] != cid], 4):
                s = rng.choice([other.explanation, *other.phrasings] if other.explanation else [other.plain])
                b.add_spoken(s, point.plain, NEUTRAL, (cid, ocid), "other-card-point")
            for ocid, other in rng.sample([x for x in all_points if x[0] != cid], 2):
                b.add(upper_first(point.plain) + ".", other.plain, NEUTRAL, (cid, ocid), "other-card-point")
        for pitfall in pitfalls:
            for ocid, other in rng.sample([x for x in all_points if x[0] != cid], 2):
                b.add(
                    other.explanation or other.plain,
                    pitfall.title.plain,
                    NEUTRAL,
                    (cid, ocid),
                    "other-card-pitfall",
                )

        # NEUTRAL: keyword salad from a point's distinctive terms, labels and bare term lists,
        # against the point and against the card's pitfalls.
        for i, point in enumerate(points):
            terms = distinctive(" ".join([point.plain, *statements[i]]))
            if len(terms) < 3:
                continue
            for template in rng.sample(SALAD, 5):
                picked = rng.sample(terms, min(4, len(terms)))
                while len(picked) < 4:
                    picked.append(rng.choice(terms))
                salad = upper_first(template.format(a=picked[0], b=picked[1], c=picked[2], d=picked[3]))
                b.add_spoken(salad, point.plain, NEUTRAL, one, "salad")
                b.add(salad, rng.choice(pitfalls).title.plain, NEUTRAL, one, "salad-pitfall")
            listed = ", ".join(rng.sample(terms, min(5, len(terms))))
            b.add(upper_first(listed) + ".", point.plain, NEUTRAL, one, "term-list")
            b.add(f"Key terms: {listed}.", point.plain, NEUTRAL, one, "term-list")
            b.add(upper_first(rng.choice(terms)) + ":", point.plain, NEUTRAL, one, "label")
            b.add(upper_first(rng.choice(terms)) + ".", point.plain, NEUTRAL, one, "label")
        for label in (
            "Placement:",
            "Memory:",
            "Performance:",
            "Why it matters:",
            "The short answer:",
            "Two things:",
        ):
            b.add(label, rng.choice(points).plain, NEUTRAL, one, "label")
            b.add(label, rng.choice(pitfalls).title.plain, NEUTRAL, one, "label")

        # Synthetic answers: two or three statements of different points, sometimes with a pitfall's
        # claim, against every point and pitfall of the card.
        for _ in range(10):
            chosen = rng.sample(range(len(points)), rng.choice((2, 3)))
            parts = [rng.choice(statements[i]) for i in chosen if statements[i]]
            asserted = rng.randrange(len(pitfalls)) if rng.random() < 0.4 else None
            if asserted is not None and paired.get(asserted) in chosen:
                asserted = None
            if asserted is not None:
                parts.insert(
                    rng.randrange(len(parts) + 1), upper_first(lower_first(pitfalls[asserted].title.plain))
                )
            said = " ".join(upper_first(part.rstrip(".")) + "." for part in parts)
            if rng.random() < 0.3:
                said = transcript(said, rng)
            for i, point in enumerate(points):
                refuted = asserted is not None and paired.get(asserted) == i
                label = ENTAIL if i in chosen and statements[i] else CONTRADICT if refuted else NEUTRAL
                b.add(said, point.plain, label, one, "composed")
            for f, pitfall in enumerate(pitfalls):
                label = ENTAIL if f == asserted else CONTRADICT if paired.get(f) in chosen else NEUTRAL
                b.add(said, pitfall.title.plain, label, one, "composed")

        # The labelled answers of a tuning card.
        if cid in TUNING:
            add_labelled(b, cid, card, lexical, paired)

    balance(b)
    b.pairs.sort(
        key=lambda pair: (
            str(pair["cards"]),
            str(pair["source"]),
            str(pair["hypothesis"]),
            str(pair["premise"]),
        )
    )
    write(OUT, b.pairs, "pairs")
    write_echo(cards, b.seen)
    write_written(cards, b.seen)


def write(path: Path, pairs: list[dict[str, object]], what: str) -> None:
    """The pairs as JSON lines, and how many of each label were written."""
    with path.open("w", encoding="utf-8") as out:
        for pair in pairs:
            out.write(json.dumps(pair, ensure_ascii=False) + "\n")
    counts = Counter(str(pair["label"]) for pair in pairs)
    print(f"{len(pairs)} {what}: {dict(sorted(counts.items()))} -> {path.relative_to(PROJECT_ROOT)}")


# Neutral pairs that are many and alike: thinned first when neutral outnumbers the other classes.
THINNED = (
    "other-point",
    "pitfall-other-pitfall",
    "pitfall-body-other",
    "answer-sentence-other",
    "model-sentence-other",
    "salad-pitfall",
    "other-card-point",
    "other-card-pitfall",
    "pitfall-vs-other-point",
    "answer-sentence-empty",
    "composed",
)


def balance(b: Builder) -> None:
    """Thin the commonest neutral pairs so neutral is about 1.2 times the larger other class."""
    counts = Counter(str(pair["label"]) for pair in b.pairs)
    target = int(1.2 * max(counts[ENTAIL], counts[CONTRADICT]))
    excess = counts[NEUTRAL] - target
    thinnable = [
        k for k, pair in enumerate(b.pairs) if pair["label"] == NEUTRAL and pair["source"] in THINNED
    ]
    if excess <= 0 or not thinnable:
        return
    dropped = set(b.rng.sample(thinnable, min(excess, len(thinnable))))
    b.pairs = [pair for k, pair in enumerate(b.pairs) if k not in dropped]


def write_echo(cards: dict, seen: set[tuple[str, str]]) -> None:  # type: ignore[type-arg]
    """True sentences that share a pitfall's words (the card's true statements and the sentences
    of its model answer closest to the pitfall, each only where it is the closest one of its kind)
    against the pitfall: contradict. Short comma lists of a point's terms: neutral."""
    e = Builder()
    e.rng = random.Random(SEED + 1)
    e.seen = set(seen)
    for cid, card in cards.items():
        one = (cid,)
        lexical = Lexical(card)
        model = [
            " ".join(part.replace("`", "").split())
            for text in (card.basics.plain, card.solid.plain)
            for part in re.split(r"(?<=[.!?])\s+", text)
            if part.strip()
        ]
        truths = [t.title.plain for t in card.truths]
        for pitfall in card.pitfalls:
            claim = pitfall.title.plain
            for pool, floor in ((truths, 0.25), (model, 0.3)):
                if not pool:
                    continue
                scores = [row[0] for row in lexical.similarity(pool, [claim])]
                ranked = sorted(range(len(pool)), key=lambda k: -scores[k])
                top = ranked[0]
                if scores[top] >= floor and (len(pool) < 2 or scores[top] - scores[ranked[1]] >= 0.05):
                    e.add_spoken(pool[top], claim, CONTRADICT, one, "echo-true")
            for sentence in whole_sentences(pitfall.body.plain)[1:3]:
                e.add(sentence, claim, CONTRADICT, one, "echo-body")
        for point in card.points:
            statements = [s for s in (point.explanation, *point.phrasings) if s]
            terms = distinctive(" ".join([point.plain, *statements]))
            if len(terms) < 3:
                continue
            for _ in range(3):
                listed = ", ".join(e.rng.sample(terms, 3))
                e.add(listed, point.plain, NEUTRAL, one, "echo-term-list")
                e.add(listed, e.rng.choice(card.pitfalls).title.plain, NEUTRAL, one, "echo-term-list")
    write(ECHO_OUT, e.pairs, "echo pairs")


def write_written(cards: dict, seen: set[tuple[str, str]]) -> None:  # type: ignore[type-arg]
    """The hand-written pairs of written/, checked against their cards, a salad paired with every
    point and pitfall of its card, and some of each said aloud."""
    w = Builder()
    w.rng = random.Random(SEED + 2)
    w.seen = set(seen)
    for path in sorted(WRITTEN.glob("*.jsonl")):
        cid = path.stem
        card = cards[cid]
        claims = [p.plain for p in card.points] + [f.title.plain for f in card.pitfalls]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            pair = json.loads(line)
            if pair["label"] not in (ENTAIL, NEUTRAL, CONTRADICT) or pair["cards"] != [cid]:
                raise SystemExit(f"{path.name}:{number}: label or cards do not fit the card")
            targets = claims if pair["hypothesis"] == "*" else [pair["hypothesis"]]
            if not set(targets) <= set(claims):
                raise SystemExit(f"{path.name}:{number}: not a point or pitfall of {cid}")
            for hypothesis in targets:
                w.add_spoken(pair["premise"], hypothesis, pair["label"], (cid,), pair["source"])
    write(WRITTEN_OUT, w.pairs, "written pairs")


def add_labelled(b: Builder, cid: str, card, lexical: Lexical, paired: dict[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Whole answers against every point and pitfall (entail when labelled so, contradict when the
    answer asserts the pitfall refuting the point or covers the point refuting the pitfall,
    neutral otherwise); single sentences where the sentence is clearly the evidence."""
    one = (cid,)
    answers = json.loads((LABELLED / f"{cid}.json").read_text(encoding="utf-8"))["answers"]
    points, pitfalls = card.points, card.pitfalls
    point_at = {p.key: i for i, p in enumerate(points)}
    pitfall_at = {f.key: i for i, f in enumerate(pitfalls)}
    refs = [[p.plain, *(s for s in (p.explanation, *p.phrasings) if s)] for p in points]
    for answer in answers:
        text, covers, asserts = answer["text"], set(answer["covers"]), set(answer["asserts"])
        covered = {point_at[k] for k in covers}
        asserted = {pitfall_at[k] for k in asserts}
        refuted_points = {paired[f] for f in asserted if f in paired}
        for i, point in enumerate(points):
            if i in covered:
                label = ENTAIL
            elif i in refuted_points:
                label = CONTRADICT
            else:
                label = NEUTRAL
            b.add(text, point.plain, label, one, f"answer-{answer['style']}")
        for f, pitfall in enumerate(pitfalls):
            if f in asserted:
                label = ENTAIL
            elif f in paired and paired[f] in covered:
                label = CONTRADICT
            else:
                label = NEUTRAL
            b.add(text, pitfall.title.plain, label, one, f"answer-{answer['style']}")

        sentences = [unit.text for unit in units(text)]
        if len(sentences) < 2:
            continue
        if not covers and not asserts:
            # Claims nothing of the card: every sentence is neutral to every point and pitfall.
            for sentence in sentences:
                for point in points:
                    b.add(sentence, point.plain, NEUTRAL, one, "answer-sentence-empty")
                for pitfall in pitfalls:
                    b.add(sentence, pitfall.title.plain, NEUTRAL, one, "answer-sentence-empty")
            continue
        for sentence in sentences:
            scores = [max(row[0] for row in lexical.similarity(r, [sentence])) for r in refs]
            order = sorted(range(len(points)), key=lambda j: -scores[j])
            best, second = scores[order[0]], scores[order[1]]
            if order[0] in covered and best >= 0.25 and best - second >= 0.12 and not asserts:
                b.add(sentence, points[order[0]].plain, ENTAIL, one, "answer-sentence")
                for j in order[1:]:
                    if j not in covered and scores[j] < 0.05:
                        b.add(sentence, points[j].plain, NEUTRAL, one, "answer-sentence-other")
        for f in asserted:
            claim = pitfalls[f].title.plain
            scores = [s[0] for s in lexical.similarity(sentences, [claim])]
            top = max(range(len(sentences)), key=lambda k: scores[k])
            ranked = sorted(scores, reverse=True)
            if ranked[0] >= 0.3 and ranked[0] - ranked[1] >= 0.12:
                b.add(sentences[top], claim, ENTAIL, one, "answer-sentence-asserts")


if __name__ == "__main__":
    main()

"""Which answer points an answer covers and which pitfalls it asserts, each with the stretch of
the answer that shows it: the lexical method with the settings bench/coverage_methods.py tuned
on the tuning cards of tests/coverage/ (tests/coverage/test_evaluation.py holds it to its figures
on the held-out cards). Suggestions only: the person's own ticks decide."""

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from app.content.cards import Card, item_key
from app.coverage.methods import Lexical, Unit, claims_nothing, denies, sentences, units, whole_sentences
from app.coverage.polarity import contradicts

METHOD = "lexical"


@dataclass(frozen=True)
class Tuning:
    """The method's settings. `expansion`: how many of the model answer's sentences closest to a
    point join it as references; a sentence covers a point when it claims (is not a label or a
    run of terms), scores at least `threshold` on it and at least `margin` more than on the
    card's closest pitfall; it asserts a pitfall when it scores at least `pitfall_threshold` on
    it and `pitfall_margin` more than on the closest point, and (`skip_denials`) does not deny
    what it says unless the pitfall's own heading is a denial. With `polarity`, a sentence that
    says a point's or a pitfall's opposite (app/coverage/polarity.py) scores nothing on it. A
    covered point is sure from `sure` on (precision 0.93 on the tuning cards); a pitfall found
    by words alone never is (about 0.6 there): it reads "check this"."""

    expansion: int = 0
    threshold: float = 0.171
    margin: float = 0.15
    pitfall_threshold: float = 0.294
    pitfall_margin: float = 0.0
    skip_denials: bool = False
    polarity: bool = True
    sure: float = 0.35


TUNED = Tuning()


# What a person reads for a point and for a pitfall, however the checker's suggestion reaches
# them (the pages, the CLI): how sure it is, in words.
COVERED, MAYBE, NOT_FOUND = "covered", "maybe covered", "not found"


def point_verdict(covered: bool, sure: bool) -> str:
    return (COVERED if sure else MAYBE) if covered else NOT_FOUND


def pitfall_lead(sure: bool) -> str:
    """The words before the evidence of a pitfall found in an answer."""
    return "You said" if sure else "Check this:"


@dataclass(frozen=True)
class PointHit:
    id: str
    covered: bool
    score: float
    evidence: Unit | None  # the answer's best stretch for the point; shown when covered
    sure: bool = True  # covered, and the method is sure of it (`point_verdict`)


@dataclass(frozen=True)
class PitfallHit:
    id: str
    evidence: Unit
    sure: bool = True  # (`pitfall_lead`)


@dataclass(frozen=True)
class Coverage:
    points: tuple[PointHit, ...]  # in the card's order
    pitfalls: tuple[PitfallHit, ...]  # only those asserted, in the card's order
    method: str = METHOD

    @property
    def covered(self) -> list[str]:
        return [hit.id for hit in self.points if hit.covered]


@dataclass(frozen=True)
class Target:
    """What an answer is checked against: an answer point, or a sentence of a follow-up's answer."""

    id: str
    references: tuple[str, ...]


class Checker:
    def __init__(self, card: Card, targets: list[Target], tuning: Tuning = TUNED) -> None:
        self._lexical, self._tuning = Lexical(card), tuning
        self._targets = targets
        self._pitfalls = [(entry.key, entry.title.plain) for entry in card.pitfalls]
        self._denying = [tuning.skip_denials and not denies(title) for _, title in self._pitfalls]
        self._references = [ref for target in targets for ref in target.references]

    def check(self, text: str) -> Coverage:
        found = units(text)
        if not found:
            return Coverage(tuple(PointHit(t.id, False, 0.0, None) for t in self._targets), ())
        references = self._references + [title for _, title in self._pitfalls]
        scores = self._lexical.similarity([unit.text for unit in found], references)
        by_target, against_pitfalls = [], []
        for unit, row in zip(found, scores, strict=True):
            at, best = 0, []
            for target in self._targets:
                # A point's best reference the stretch does not contradict: its author's phrasing
                # may say positively what the point says by a denial.
                columns = range(at, at + len(target.references))
                best.append(
                    max(
                        self._unless_contradicted(unit, reference=references[i], score=row[i])
                        for i in columns
                    )
                )
                at += len(target.references)
            by_target.append(best)
            against_pitfalls.append(
                [
                    self._unless_contradicted(unit, reference=references[at + i], score=row[at + i])
                    for i in range(len(self._pitfalls))
                ]
            )
        return Coverage(
            self._points(found, by_target=by_target, against_pitfalls=against_pitfalls),
            self._asserted(found, by_target=by_target, against_pitfalls=against_pitfalls),
        )

    def _unless_contradicted(self, unit: Unit, *, reference: str, score: float) -> float:
        """The score, or none when the stretch says the reference's opposite: it denies what the
        reference claims, or puts its relation the other way round."""
        worth_asking = self._tuning.polarity and score >= self._tuning.threshold
        return (
            0.0
            if worth_asking and contradicts(unit.text, reference=reference, weight=self._lexical.stem_weight)
            else score
        )

    def _points(
        self, found: list[Unit], *, by_target: list[list[float]], against_pitfalls: list[list[float]]
    ) -> tuple[PointHit, ...]:
        hits = []
        claims = [not claims_nothing(unit.text) for unit in found]
        closest_pitfall = [max(pitfalls, default=0.0) for pitfalls in against_pitfalls]
        for column, target in enumerate(self._targets):
            best: tuple[float, Unit | None] = (0.0, None)
            for unit, scores, claim, pitfall in zip(found, by_target, claims, closest_pitfall, strict=True):
                allowed = claim and scores[column] - pitfall >= self._tuning.margin
                if allowed and scores[column] > best[0]:
                    best = (scores[column], unit)
            score, evidence = best
            covered = evidence is not None and score >= self._tuning.threshold
            sure = covered and score >= self._tuning.sure
            hits.append(PointHit(target.id, covered, round(score, 3), evidence, sure=sure))
        return tuple(hits)

    def _asserted(
        self, found: list[Unit], *, by_target: list[list[float]], against_pitfalls: list[list[float]]
    ) -> tuple[PitfallHit, ...]:
        hits = []
        denying = [denies(unit.text) for unit in found]
        closest_point = [max(scores, default=0.0) for scores in by_target]
        for column, (key, _) in enumerate(self._pitfalls):
            best: tuple[float, Unit | None] = (self._tuning.pitfall_threshold, None)
            for unit, pitfalls, denial, point in zip(
                found, against_pitfalls, denying, closest_point, strict=True
            ):
                score = pitfalls[column]
                if self._denying[column] and denial:
                    continue
                if score - point >= self._tuning.pitfall_margin and score >= best[0]:
                    best = (score, unit)
            if best[1] is not None:
                hits.append(PitfallHit(key, best[1], sure=False))
        return tuple(hits)


def point_targets(card: Card, tuning: Tuning = TUNED) -> list[Target]:
    """Per point: its own words; the point joined with each of the `expansion` sentences of the
    basics and solid answer closest to it; the point with its author's explanation; and each of
    the phrasings its author accepts."""
    explaining = sentences(card.basics.plain) + sentences(card.solid.plain) if tuning.expansion else []
    # Scoring the points against the model answer is only worth it when some of it joins them.
    closeness = Lexical(card).similarity([p.plain for p in card.points], explaining) if explaining else None
    targets = []
    for position, point in enumerate(card.points):
        row = closeness[position] if closeness else []
        closest = sorted(range(len(row)), key=lambda i: -row[i])[: tuning.expansion]
        references = [point.plain, *(f"{point.plain}. {explaining[i]}" for i in closest)]
        references += [f"{point.plain}. {point.explanation}"] if point.explanation else []
        targets.append(Target(point.key, tuple(references + list(point.phrasings))))
    return targets


def follow_up_targets(card: Card, index: int) -> list[Target]:
    """A follow-up has no points: each claim of its answer is one (its sentences whole, however
    long; its list items), by the key of its words."""
    said = whole_sentences(card.follow_ups[index].body.lines)
    return [Target(item_key(sentence), (sentence,)) for sentence in dict.fromkeys(said)]


# Reading a card into what answers are scored against takes ~5-10 ms, checking an answer ~1 ms:
# one checker per card (and per follow-up) as the catalogue serves it. Keyed by the Card object,
# which the entry keeps alive so its id is not reused; an edited card is a new object.
MAX_CHECKERS = 512
_checkers: OrderedDict[tuple[int, int | None], tuple[Card, Checker]] = OrderedDict()
_lock = threading.Lock()


def _checker(card: Card, follow_up: int | None) -> Checker:
    key = id(card), follow_up
    with _lock:
        found = _checkers.get(key)
    if found is not None and found[0] is card:
        return found[1]
    targets = point_targets(card) if follow_up is None else follow_up_targets(card, follow_up)
    checker = Checker(card, targets)  # built outside the lock: other cards go on
    with _lock:
        _checkers[key] = (card, checker)
        while len(_checkers) > MAX_CHECKERS:
            _checkers.popitem(last=False)
    return checker


def check(card: Card, text: str) -> Coverage:
    return _checker(card, None).check(text)


def check_follow_up(card: Card, *, index: int, text: str) -> Coverage:
    return _checker(card, index).check(text)


def model_answer(card: Card) -> str:
    """The card's own Basics and Solid answer, read as one answer."""
    return f"{card.basics.plain}\n{card.solid.plain}"


def check_model_answer(card: Card) -> Coverage:
    """What the checker makes of the card's own model answer (its evidence stands in
    `model_answer(card)`): a point it does not find is a content bug, or a point the checker
    cannot recognise without help. Not kept: a card being written is checked once per keystroke."""
    # Its own sentences are no reference here: every point would match the answer it was joined to.
    targets = point_targets(card, replace(TUNED, expansion=0))
    return Checker(card, targets).check(model_answer(card))


def uncovered_by_model_answer(card: Card) -> list[int]:
    """The positions of the points the card's own model answer does not cover."""
    covered = set(check_model_answer(card).covered)
    return [i for i, point in enumerate(card.points) if point.key not in covered]

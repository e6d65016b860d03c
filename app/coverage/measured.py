"""How well each coverage method agrees with hand labels, as tests/coverage/test_evaluation.py
measures it on the held-out cards (answers to cards its settings were not tuned on) and on the
blind ones: the figures every page that shows a suggestion states beside it. The evaluation fails
when these stop being true."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Figures:
    """A method's agreement with the hand labels on one part of the labelled set."""

    answers: int
    cards: int
    precision: float  # of the points it ticks, the share hand labels say were covered
    recall: float  # of the points hand labels say were covered, the share it ticks
    pitfall_precision: float
    pitfall_recall: float
    salad: float  # of the points a keyword salad names without claiming them, the share ticked
    contradicted: float  # of the points a negation or a reversal names, the share ticked


@dataclass(frozen=True)
class Agreement(Figures):
    """On the held-out cards (its settings were not tuned on them), and apart on the blind ones
    (written and labelled by someone who never saw any method or its output)."""

    blind: Figures

    def sentence(self) -> str:
        """What the figures mean, for a person reading a suggestion."""
        b = self.blind
        return (
            f"Measured on {self.answers} hand-labelled answers to {self.cards} cards it was not tuned on: "
            f"of the points it ticks, {self.precision:.0%} were covered, and it ticks {self.recall:.0%} "
            f"of the points that were; on {b.answers} answers to {b.cards} more cards, written by someone "
            f"who never saw it, {b.precision:.0%} and {b.recall:.0%}."
        )

    def pitfall_sentence(self) -> str:
        b = self.blind
        return (
            f"Of the pitfalls it says an answer asserts, {self.pitfall_precision:.0%} were asserted, and it "
            f"finds {self.pitfall_recall:.0%} of those that were ({b.pitfall_precision:.0%} and "
            f"{b.pitfall_recall:.0%} on the blind answers)."
        )


# The lexical checker's (app/coverage/checker.py), which reads every answer as it is recorded.
MEASURED = Agreement(
    answers=136,
    cards=4,
    precision=0.78,
    recall=0.75,
    pitfall_precision=0.57,
    pitfall_recall=0.73,
    salad=0.2,
    contradicted=0.29,
    blind=Figures(
        answers=64,
        cards=4,
        precision=0.6,
        recall=0.73,
        pitfall_precision=0.55,
        pitfall_recall=0.68,
        salad=0.55,
        contradicted=0.19,
    ),
)
# The entailment model's, read behind the words (app/coverage/reading.py), whose reading replaces
# the lexical one when a worker sends it.
MEASURED_CLAIMS = Agreement(
    answers=136,
    cards=4,
    precision=0.87,
    recall=0.71,
    pitfall_precision=0.64,
    pitfall_recall=0.68,
    salad=0.07,
    contradicted=0.19,
    blind=Figures(
        answers=64,
        cards=4,
        precision=0.63,
        recall=0.69,
        pitfall_precision=0.59,
        pitfall_recall=0.68,
        salad=0.45,
        contradicted=0.17,
    ),
)


@dataclass(frozen=True)
class Method:
    """A method as a page names it beside its suggestion: what read the answer, and how well."""

    read_by: str
    measured: Agreement


# Each method a stored suggestion names (`Coverage.method`), declared once.
METHODS = {
    "lexical": Method("word overlap with the card", MEASURED),
    "claims": Method("word overlap, checked by the entailment model", MEASURED_CLAIMS),
}

"""How well the checker agrees with hand labels, as tests/coverage/test_evaluation.py measures it
on the held-out cards (answers to cards its settings were not tuned on): the figures every page
that shows a suggestion states beside it. The evaluation fails when these stop being true."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Agreement:
    answers: int
    cards: int
    precision: float  # of the points it ticks, the share hand labels say were covered
    recall: float  # of the points hand labels say were covered, the share it ticks
    pitfall_precision: float
    pitfall_recall: float

    def sentence(self) -> str:
        """What the figures mean, for a person reading a suggestion."""
        return (
            f"Measured on {self.answers} hand-labelled answers to {self.cards} cards it was not tuned on: "
            f"of the points it ticks, {self.precision:.0%} were covered, and it ticks {self.recall:.0%} "
            "of the points that were."
        )

    def pitfall_sentence(self) -> str:
        return (
            f"Of the pitfalls it says an answer asserts, {self.pitfall_precision:.0%} were asserted, and it "
            f"finds {self.pitfall_recall:.0%} of those that were."
        )


# The lexical checker's (app/coverage/checker.py), which reads every answer as it is recorded.
MEASURED = Agreement(
    answers=108, cards=4, precision=0.92, recall=0.82, pitfall_precision=0.6, pitfall_recall=0.77
)
# The entailment model's (app/coverage/reading.py), whose reading replaces it when a worker sends it.
# Placeholders until the model is measured on the same held-out cards.
MEASURED_CLAIMS = Agreement(
    answers=108, cards=4, precision=0.92, recall=0.82, pitfall_precision=0.6, pitfall_recall=0.77
)


@dataclass(frozen=True)
class Method:
    """A method as a page names it beside its suggestion: what read the answer, and how well."""

    read_by: str
    measured: Agreement


# Each method a stored suggestion names (`Coverage.method`), declared once.
METHODS = {
    "lexical": Method("word overlap with the card", MEASURED),
    "claims": Method("the entailment model", MEASURED_CLAIMS),
}

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


MEASURED = Agreement(
    answers=108, cards=4, precision=0.92, recall=0.82, pitfall_precision=0.6, pitfall_recall=0.77
)

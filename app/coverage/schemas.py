"""What the coverage check takes and answers (the API's body and document; the CLI's --json)."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.content.tiers import Tier
from app.schemas import MAX_ANSWER_CHARS, Storable

# The pattern says in the schema what stripping then `min_length` refuses: text of spaces only.
AnswerText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ANSWER_CHARS, pattern=r"\S"),
    Storable,
]


class CoverageIn(BaseModel):
    # Strict for JSON, as every API body (see app/schemas.py).
    model_config = ConfigDict(extra="forbid", strict=True)

    tier: Tier = Field(
        description="the depth answered at; every depth is checked against the same answer points"
    )
    text: AnswerText = Field(description="the answer as written or transcribed")


class PointOut(BaseModel):
    id: str = Field(description="the answer point's id, as attempts store it")
    covered: bool = Field(description="suggested as covered: the person's own ticks decide")
    sure: bool = Field(description="covered and the checker is sure of it; false reads 'maybe covered'")
    score: float = Field(description="the answer's best stretch's lexical score on the point, 0 to 1")
    evidence: str | None = Field(description="that stretch of the answer as written; null when none")


class PitfallOut(BaseModel):
    id: str = Field(description="the pitfall's id, 'p-<key>', as the card API and the quiz name it")
    evidence: str = Field(description="the stretch of the answer that asserts it, as written")
    sure: bool = Field(description="the checker is sure the answer asserts it; false reads 'check this'")


class FiguresOut(BaseModel):
    answers: int
    cards: int
    precision: float
    recall: float
    pitfall_precision: float
    pitfall_recall: float
    salad: float = Field(
        description="of the points keyword salad names without claiming them, the share ticked"
    )
    contradicted: float = Field(description="of the points an answer denies or reverses, the share ticked")


class MeasuredOut(FiguresOut):
    """How well the checker agreed with hand labels on answers to cards it was not tuned on, and
    (`blind`) on answers written by someone who never saw it."""

    blind: FiguresOut
    sentence: str = Field(description="what the figures mean, to state beside any suggestion")
    pitfall_sentence: str = Field(description="what the pitfall figures mean, beside any pitfall listed")


class CoverageOut(BaseModel):
    points: list[PointOut] = Field(description="every answer point, in the card's order")
    pitfalls: list[PitfallOut] = Field(
        description="only the pitfalls the answer asserts, in the card's order"
    )
    method: str
    measured: MeasuredOut

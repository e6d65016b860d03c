"""`tiercards coverage CARD_ID`: which answer points an answer (on standard input) covers and
which pitfalls it asserts, as POST /api/cards/{card_id}/coverage answers it."""

import sys
from typing import Annotated

import typer
from pydantic import ValidationError

from app.content.cards import Card, pitfall_id
from app.content.catalogue import load
from app.content.tiers import TIERS, parse_tier
from app.coverage.checker import Coverage, check, pitfall_lead, point_verdict
from app.coverage.measured import METHODS
from app.coverage.schemas import CoverageIn, CoverageOut
from app.coverage.service import document, read_with_model
from app.exceptions import in_words
from app.settings import get_settings

# Wide enough for "maybe covered", so every point's text starts in the same column.
LABEL = 15


def coverage_text(doc: CoverageOut, card: Card) -> str:
    """One line a point (covered or not) and a line per asserted pitfall, each with its evidence
    below it; then the sentence saying how far to trust the suggestions."""
    points = {point.key: point.plain for point in card.points}
    pitfalls = {pitfall_id(entry.key): entry.title.plain for entry in card.pitfalls}
    lines = []
    for point in doc.points:
        lines.append(f"{point_verdict(point.covered, point.sure):<{LABEL}}{points[point.id]}")
        if point.covered and point.evidence:
            lines.append(f"{'':<{LABEL}}“{point.evidence}”")
    for pitfall in doc.pitfalls:
        lead = pitfall_lead(pitfall.sure)
        lines += [f"{'pitfall':<{LABEL}}{pitfalls[pitfall.id]}", f"{'':<{LABEL}}{lead} “{pitfall.evidence}”"]
    if not doc.pitfalls:
        lines.append(f"{'':<{LABEL}}no pitfall asserted")
    trust = [doc.measured.sentence] + ([doc.measured.pitfall_sentence] if doc.pitfalls else [])
    read_by = f"Read by {METHODS[doc.method].read_by}. Suggestions only: your own ticks decide."
    return "\n".join([*lines, "", read_by, *trust])


def _read(card: Card, text: str, method: str) -> Coverage:
    if method and method not in METHODS:
        typer.echo(f"error: no method {method!r}: it must be {in_words(tuple(METHODS))}", err=True)
        raise typer.Exit(code=2)
    if method == "lexical":
        return check(card, text)
    try:
        return read_with_model(card, text)
    except Exception as missing:  # not installed, or its files refused (ModelRefused) or unreadable
        if method:
            typer.echo(f"error: the entailment model cannot read here ({missing})", err=True)
            raise typer.Exit(code=2) from missing
        return check(card, text)


def coverage(
    card_id: Annotated[str, typer.Argument(help="The card answered, by its id.")],
    tier: Annotated[
        str | None, typer.Option(help="The depth answered at (default: the card's level).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the document POST /api/cards/{card_id}/coverage answers.")
    ] = False,
    method: Annotated[
        str,
        typer.Option(
            help=f"How to read the answer: {in_words(tuple(METHODS))} (default: the entailment model where it "
            "is installed, else words; the API reads by words, and the model reads recorded answers on the workers)."
        ),
    ] = "",
) -> None:
    """Check an answer, read from standard input, against a card: which answer points it covers
    and which pitfalls it asserts, each with the words that show it. Stores nothing."""
    settings = get_settings()
    card = load(settings.content_dir).cards.get(card_id)
    if card is None:
        typer.echo(f"error: no card {card_id!r} in {settings.content_dir}", err=True)
        raise typer.Exit(code=2)
    depth = parse_tier(tier, card.level)
    if depth is None:
        typer.echo(f"error: no tier {tier!r}: it must be {in_words(TIERS)}", err=True)
        raise typer.Exit(code=2)
    text = sys.stdin.read()
    if not text.strip():
        typer.echo("error: no answer on standard input (type or pipe it in, then end it)", err=True)
        raise typer.Exit(code=1)
    try:
        answer = CoverageIn.model_validate({"tier": depth, "text": text})
    except ValidationError as refused:
        for problem in refused.errors(include_url=False):
            typer.echo(f"error: the answer: {problem['msg']}", err=True)
        raise typer.Exit(code=1) from refused
    doc = document(card, text=answer.text, found=_read(card, answer.text, method))
    typer.echo(doc.model_dump_json(indent=2) if as_json else coverage_text(doc, card))

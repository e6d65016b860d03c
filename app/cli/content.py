"""`tiercards content`: author and check cards."""

from pathlib import Path
from typing import Annotated

import typer

from app.settings import get_settings

content_cli = typer.Typer(help="Author and check cards.", no_args_is_help=True)


@content_cli.command("check")
def content_check(
    path: Annotated[
        Path | None, typer.Argument(help="A card file or a folder (default: CONTENT_DIR).")
    ] = None,
) -> None:
    """Validate cards; exit 1 with one `path:line: message` per problem. Edits since git's HEAD that
    would orphan recorded answers, text still as `content new` wrote it, and answer points a card's
    own model answer (without that text) does not cover as the coverage checker reads them, are
    warned about the same way, without failing."""
    from app.content.catalogue import load
    from app.content.history_check import orphaning_edits
    from app.content.placeholders import placeholders, without_placeholder_answer
    from app.content.uncovered import uncovered_point
    from app.coverage.checker import uncovered_by_model_answer

    snapshot = load(path or get_settings().content_dir)
    warnings = orphaning_edits(snapshot.cards.values())
    unwritten = [
        problem
        for card in snapshot.cards.values()
        for problem in placeholders(card, card.path.read_text(encoding="utf-8"))
    ]
    uncovered = [
        uncovered_point(card, position)
        for card in snapshot.cards.values()
        for position in uncovered_by_model_answer(without_placeholder_answer(card))
    ]
    for line in [*snapshot.problems, *warnings, *unwritten, *uncovered]:
        typer.echo(str(line))
    if warnings:
        guide = '"Editing a published card" in content/README.md'
        typer.echo(
            f"{len(warnings)} warning(s): the history of those items starts over (see {guide})", err=True
        )
    if unwritten:
        typer.echo(
            f"{len(unwritten)} placeholder warning(s): text `tiercards content new` wrote for you to replace",
            err=True,
        )
    if uncovered:
        guide = '"Helping the coverage checker" in content/README.md'
        typer.echo(
            f"{len(uncovered)} coverage warning(s): the checker would not suggest those points (see {guide})",
            err=True,
        )
    if snapshot.problems:
        files = len(snapshot.broken)
        typer.echo(f"{len(snapshot.problems)} problem(s) in {files} file(s)", err=True)
        raise typer.Exit(code=1)
    typer.echo(f"{len(snapshot.cards)} card(s) OK", err=True)


@content_cli.command("new")
def content_new(
    card_id: Annotated[str, typer.Argument(help="Stable id, e.g. tf-data-cache-order.")],
    title: Annotated[str, typer.Option(help="The question.")] = "A new question?",
    level: Annotated[str, typer.Option(help="junior, middle, senior or principal.")] = "middle",
) -> None:
    """Write a new card with every section in place, in CONTENT_DIR."""
    from app.content.scaffold import new_card

    target = get_settings().content_dir / f"{card_id}.md"
    if target.exists():
        typer.echo(f"{target} already exists", err=True)
        raise typer.Exit(code=1)
    try:
        text = new_card(card_id, title=title, level=level)
    except ValueError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(code=1) from error
    target.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {target}; fill it in, then run: tiercards content check {target}")

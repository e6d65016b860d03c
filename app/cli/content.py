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
    """Validate cards, drafts (`draft: true`) too; exit 1 with one `path:line: message` per problem
    (text still as `content new` wrote it is one, in a card that is not a draft). Edits since git's
    HEAD that would orphan recorded answers, that text in a draft, and answer points a card's own
    model answer (without that text) does not cover as the coverage checker reads them, are warned
    about the same way, without failing."""
    from app.content.catalogue import load
    from app.content.history_check import orphaning_edits
    from app.content.placeholders import placeholders, without_placeholder_answer
    from app.content.uncovered import uncovered_point
    from app.coverage.checker import uncovered_by_model_answer

    snapshot = load(path or get_settings().content_dir)
    written = [*snapshot.cards.values(), *snapshot.drafts.values()]
    warnings = orphaning_edits(written)
    # In a card that is not a draft, that text made the file broken: it is among the problems.
    unwritten = [
        problem
        for card in snapshot.drafts.values()
        for problem in placeholders(card, card.path.read_text(encoding="utf-8"))
    ]
    uncovered = [
        uncovered_point(card, position)
        for card in written
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
            f"{len(unwritten)} placeholder warning(s): text `tiercards content new` wrote for you to "
            "replace before the card leaves draft",
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
    drafts = f", {len(snapshot.drafts)} draft(s) not served" if snapshot.drafts else ""
    typer.echo(f"{len(snapshot.cards)} card(s) OK{drafts}", err=True)


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
    typer.echo(
        f"wrote {target} as a draft; fill it in, delete its `draft: true` line, then run: "
        f"tiercards content check {target}"
    )


@content_cli.command("proposals")
def content_proposals(
    status: Annotated[
        str, typer.Option(help="open, accepted, declined or all (the newest 50 of them).")
    ] = "open",
) -> None:
    """The suggested edits, newest first: id, card, state, proposer, reason, one a line (tab
    separated). They are reviewed at /author/reviews."""
    from app.authoring import proposals
    from app.cli.db import upgrade
    from app.storage.database import Database

    chosen = next((state for state in proposals.STATUSES if state == status), None)
    if status != "all" and chosen is None:
        typer.echo(f"error: --status must be {', '.join(proposals.STATUSES)} or all", err=True)
        raise typer.Exit(code=2)
    settings = get_settings()
    upgrade(settings)
    database = Database(settings)
    with database.read_sessions() as session:
        rows = proposals.listed(session, status=chosen)
        names = proposals.names(session, [row.proposer_id for row in rows])
        for row in rows:
            who = names.get(row.proposer_id, "-")
            typer.echo(f"{row.id}\t{row.card_id}\t{row.status}\t{who}\t{' '.join(row.reason.split())}")
    database.dispose()

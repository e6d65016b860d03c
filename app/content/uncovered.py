"""What an author is told of an answer point the card's own Basics and Solid answer do not cover
as the coverage checker reads them (app/coverage finds which): the CLI and the author preview say
it in the same words."""

from app.content.cards import Card, Problem


def uncovered_point(card: Card, position: int) -> Problem:
    point = card.points[position]
    return Problem(
        card.path,
        point.line,
        f'warning: answer point "{point.plain}" is not covered by the card\'s own Basics and Solid '
        "answer as the coverage checker reads them: say it in the answer, or add an '- Explanation:' "
        "or '- Said as:' under the point",
    )

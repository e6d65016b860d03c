"""The Jinja filter of content: a card's prose with its version notes placed beside the words they
quote."""

from jinja2 import Environment, pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from app.content.cards import Card, Text
from app.content.render import annotated_html


@pass_context
def noted(context: Context, text: Text, card: Card) -> Markup:
    """A card's prose as HTML, each of the card's version notes placed beside the words it quotes."""
    notes = [note for note in card.notes if note.quoted_in(text.markdown)]
    if not notes:
        return Markup(text.html)
    callout = context.environment.get_template("_version_note.html")
    callouts = [(note.quote, callout.render(note=note, card=card)) for note in notes]
    return Markup(annotated_html(text.markdown, callouts))


def register(env: Environment) -> None:
    env.filters["noted"] = noted

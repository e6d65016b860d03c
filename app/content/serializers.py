"""What a person at a given depth sees of a card, for the page and the API alike."""

from typing import Any

from app.content.cards import Card, Entry, Text, VersionNote, quiz_item_id
from app.content.tiers import Tier, go_deeper_tiers, sees


def _text(text: Text) -> dict[str, str]:
    return {"markdown": text.markdown, "html": text.html}


def _entry(entry: Entry, *, title_key: str, body_key: str) -> dict[str, Any]:
    return {title_key: _text(entry.title), body_key: _text(entry.body)}


def _quiz_entry(entry: Entry, costly: bool) -> dict[str, Any]:
    """A pitfall or true statement, with the id a quiz attempt's `choices` name it by."""
    body_key = "why_wrong" if costly else "why_true"
    return {"id": quiz_item_id(entry, costly), **_entry(entry, title_key="statement", body_key=body_key)}


def _note(note: VersionNote) -> dict[str, Any]:
    demo = note.demo
    return {
        "id": note.key,
        "quote": note.quote,
        "checked": note.checked,
        "sources": list(note.sources),
        "relies_on": list(note.relies_on),
        "demo": None
        if demo is None
        else {
            "preset": demo.preset,
            "variant": demo.variant,
            "against": demo.against,
            "params": dict(demo.params),
        },
        "note": _text(note.body),
    }


def _shown(card: Card, tier: Tier) -> list[Text]:
    """The prose `tier` sees, where a version note's quote can stand."""
    texts = [card.basics, *(card.go_deeper[t] for t in go_deeper_tiers(tier))]
    texts += [entry.body for entry in card.pitfalls + card.truths]
    if sees(tier, "solid"):
        texts.append(card.solid)
    if sees(tier, "follow_ups"):
        texts += [entry.body for entry in card.follow_ups]
    if sees(tier, "deep_dive"):
        texts.append(card.deep_dive)
    return texts


def card_summary(card: Card) -> dict[str, Any]:
    return {
        "id": card.id,
        "title": card.title.markdown,
        "level": card.level,
        "importance": card.importance,
        "frequency": card.frequency,
        "topics": list(card.topics),
        "timings": {"basics": card.timings.basics, "solid": card.timings.solid},
        "demos": list(card.demos),
    }


def card_for_tier(card: Card, tier: Tier) -> dict[str, Any]:
    """The sections `tier` sees (content/README.md has the table); others are left out."""
    sections: dict[str, Any] = {
        "answer_points": [{"id": p.key, **_text(p)} for p in card.points],
        "basics": _text(card.basics),
        "code": {**_text(card.code), "language": card.code_language, "lines": card.code_line_count},
        "go_deeper": {t: _text(card.go_deeper[t]) for t in go_deeper_tiers(tier)},
        "pitfalls": [_quiz_entry(p, costly=True) for p in card.pitfalls],
        "true_statements": [_quiz_entry(t, costly=False) for t in card.truths],
    }
    if sees(tier, "solid"):
        sections["solid_answer"] = _text(card.solid)
    if sees(tier, "follow_ups"):
        sections["follow_ups"] = [_entry(f, title_key="question", body_key="answer") for f in card.follow_ups]
    if sees(tier, "deep_dive"):
        sections["deep_dive"] = _text(card.deep_dive)
    shown = _shown(card, tier)
    sections["version_notes"] = [
        _note(note) for note in card.notes if any(note.quoted_in(text.markdown) for text in shown)
    ]
    return {**card_summary(card), "tier": tier, "sections": sections}

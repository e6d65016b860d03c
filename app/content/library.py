"""The card library's listing: every card once, under a topic heading, narrowed by level, topic and
title words.

A card stands under its first topic (its other topics stay on it as tags); when the library is
narrowed to one topic, every card with that topic stands under it. What does not depend on the
filters (search text, demo titles, the grouping) is worked out once per catalogue snapshot, so a
request over a large deck only filters.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

from app.content.cards import Card
from app.presets import PRESETS


@dataclass(frozen=True)
class Listed:
    card: Card
    # What title words are looked for in.
    search_text: str
    # The titles of the demo presets the card links, as its page names them.
    demos: tuple[str, ...]
    # The card's entry on the library page, by the topic heading it stands under: rendered once
    # per snapshot by the page, which keeps it here so that it lives as long as the snapshot.
    rendered: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def matches(self, level: str, words: list[str]) -> bool:
        return (not level or self.card.level == level) and all(word in self.search_text for word in words)


@dataclass(frozen=True)
class Group:
    topic: str
    cards: list[Listed]


class Library:
    def __init__(self, cards: Iterable[Card]) -> None:
        """`cards` in the order the library lists them within a topic."""
        self._by_topic: dict[str, list[Listed]] = {}
        self._by_first_topic: dict[str, list[Listed]] = {}
        for card in cards:
            listed = Listed(card, card.title.markdown.lower(), tuple(PRESETS[d].title for d in card.demos))
            self._by_first_topic.setdefault(card.topics[0], []).append(listed)
            for topic in dict.fromkeys(card.topics):
                self._by_topic.setdefault(topic, []).append(listed)
        self.topics = sorted(self._by_topic, key=str.lower)
        self._first_topics = sorted(self._by_first_topic, key=str.lower)

    def groups(self, level: str = "", *, topic: str = "", query: str = "") -> list[Group]:
        """The groups with a card left once filtered; topics in alphabetical order, any case."""
        words = query.lower().split()
        if topic:
            headings = {topic: self._by_topic.get(topic, [])}
        else:
            headings = {t: self._by_first_topic[t] for t in self._first_topics}
        groups = [Group(t, [c for c in cards if c.matches(level, words)]) for t, cards in headings.items()]
        return [group for group in groups if group.cards]

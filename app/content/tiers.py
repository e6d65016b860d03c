"""Which depth sees which part of a card: the one table, documented in content/README.md."""

from typing import Literal, get_args

Tier = Literal["junior", "middle", "senior", "principal"]
TIERS: tuple[Tier, ...] = get_args(Tier)
LEVELS = TIERS  # a card's level uses the same four names
IMPORTANCES = ("must-know", "good-to-know", "nice-to-know")

# Parts every tier sees are left out of this table: answer points, basics, code, pitfall quiz.
TIER_SECTIONS: dict[Tier, frozenset[str]] = {
    "junior": frozenset(),
    "middle": frozenset({"solid", "follow_ups"}),
    "senior": frozenset({"solid", "follow_ups", "deep_dive"}),
    "principal": frozenset({"solid", "follow_ups", "deep_dive"}),
}


def sees(tier: Tier, section: str) -> bool:
    return section in TIER_SECTIONS[tier]


def go_deeper_tiers(tier: Tier) -> tuple[Tier, ...]:
    """A depth sees the go-deeper expectations of its own tier and every tier below it."""
    return TIERS[: TIERS.index(tier) + 1]


def default_answer_kind(tier: Tier) -> str:
    """Juniors answer the ~20 s basics; everyone else the ~50 s solid answer."""
    return "basics" if tier == "junior" else "solid"


def parse_tier(value: str | None, default: Tier = "middle") -> Tier | None:
    """The tier named by a query value in any case ("Senior" is senior), the default when
    absent, None when unknown."""
    name = (value or "").strip().lower()
    if not name:
        return default
    return next((tier for tier in TIERS if tier == name), None)

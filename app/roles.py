"""The roles, declared once: the CLI's choices, the admin form, API validation and page text all
read this table."""

from dataclasses import dataclass
from typing import Literal

RoleName = Literal["admin", "lead", "author", "member"]


@dataclass(frozen=True)
class Role:
    name: RoleName
    label: str
    description: str
    manages_users: bool = False
    sees_team: bool = False
    # Saves cards into the content folder and accepts or declines suggested edits. Everyone
    # signed in may suggest an edit; only these may change a card.
    authors: bool = False


# Declared strongest first: groups grant the first of these they map to, and at_most keeps the
# later of two.
ROLES: dict[str, Role] = {
    role.name: role
    for role in (
        Role(
            "admin",
            "Admin",
            "Users, roles, invites and the audit log; everything a lead and an author can do.",
            True,
            True,
            True,
        ),
        Role("lead", "Lead", "The team dashboard and assignments, besides practising.", sees_team=True),
        Role(
            "author",
            "Author",
            "Writes and edits cards in the browser and reviews suggested edits, besides practising.",
            authors=True,
        ),
        Role(
            "member",
            "Member",
            "Practises: answers, quizzes, reviews, demos, their own progress; suggests edits to cards.",
        ),
    )
}
DEFAULT_ROLE: RoleName = "member"
WEAKEST_ROLE: RoleName = list(ROLES.values())[-1].name


def at_most(name: str, cap: str) -> str:
    """Role `name`, or `cap` when `cap` is the weaker of the two (both names in ROLES)."""
    order = list(ROLES)
    return max(name, cap, key=order.index)


def role_named(name: str) -> Role | None:
    return ROLES.get(name.strip().lower())

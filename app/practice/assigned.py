"""Which cards a person has been assigned and has yet to review, for /practice to serve before
other new cards and for a mock interview to draw from. Assignments belong to the team area,
which practice may not import, so app/factory.py hands the team's answer in (as it fills panels).
"""

from collections.abc import Callable

# Called with the keywords session, user_id, snapshot and now; the card ids, soonest due first.
AssignedCards = Callable[..., list[str]]


def none_assigned(**_: object) -> list[str]:
    """Where no area assigns cards (an app built without the team area)."""
    return []

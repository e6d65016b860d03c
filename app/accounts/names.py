"""What a person may be called, declared once: the alphabet, the reserved names, and the key that
makes two names one person's.

Two names are the same name when their keys are equal: Unicode compatibility forms (NFKC: a
fullwidth a, U+FF41, is "a"), case, and letters that look alike (the UTS #39 skeleton: a Cyrillic
a, U+0430, is "a"; "0" is "O"; "m" is "rn"; "I", "i" and "1" are "l") all fold away. The users
table keeps each key, unique.
"""

import re
import unicodedata

from app.accounts.confusables import LOOKS_LIKE
from app.exceptions import Invalid

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,79}")
NAME_RULE = "a name is 1 to 80 letters, digits and . _ @ + - (starting with a letter or digit)"
# The one person of AUTH_MODE=single (users.id 1), who owns what was practised alone.
SOLO_NAME = "local"
# Names nobody may choose, nor be given by a proxy or an identity provider, that would pass for
# the server's own: an account called "admin" or "system" reads as an authority it is not.
RESERVED_NAMES = (
    SOLO_NAME,
    "admin",
    "administrator",
    "root",
    "system",
    "superuser",
    "sysadmin",
    "tiercards",
    "support",
    "security",
    "owner",
    "anonymous",
    "nobody",
    "null",
)
# Long enough for any name's key (a name of 80 "m" is 160 letters) and a migration's suffix.
KEY_LENGTH = 200


def _skeleton(text: str) -> str:
    """UTS #39 section 4: decompose, put every letter's prototype in its place, decompose again."""
    mapped = "".join(LOOKS_LIKE.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """The form two names share when a reader could take one for the other."""
    # Case folds first, so that case never matters, and again after, since the skeleton maps to
    # capitals ("0" is "O"). Folding loses that "I" looks like "l" ("AIice" and "alice"), so "i",
    # "l", "I", "1" and "|" are all one letter after it.
    return _skeleton(unicodedata.normalize("NFKC", name).casefold()).casefold().replace("i", "l")


RESERVED_KEYS = frozenset(name_key(name) for name in RESERVED_NAMES)
SOLO_KEY = name_key(SOLO_NAME)


def is_reserved(name: str) -> bool:
    return name_key(name) in RESERVED_KEYS


def check_name(name: str, *, by_operator: bool = False) -> str:
    """`name`'s key if someone may be called so, else Invalid. `by_operator`: named at the server's
    command line, which may take a reserved name (the first admin may be "admin"), never the solo
    history's."""
    if not NAME_PATTERN.fullmatch(name):
        raise Invalid("username", NAME_RULE)
    key = name_key(name)
    if key in RESERVED_KEYS and not by_operator:
        raise Invalid("username", f"the name '{name}' is reserved: choose another")
    if key == SOLO_KEY:
        raise Invalid(
            "username",
            f"'{name}' names the solo history of single mode, not an account: "
            "`tiercards users adopt-local NAME` moves that history to an account",
        )
    return key

"""Password rules and hashing, after OWASP ASVS 5.0 chapter 6 (authentication):

- at least 8 characters (15 or more recommended on the form), at least 64 allowed, no rules on
  which kinds of character (6.2.1, 6.2.5, 6.2.9); spaces and any Unicode count;
- refused when it is one of the 30,000 commonest passwords (6.2.4; the list zxcvbn ships);
- hashed with argon2id (argon2-cffi's defaults, RFC 9106), re-hashed at sign-in when those
  parameters change.
"""

import threading
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from app.exceptions import Invalid

MIN_LENGTH = 8
RECOMMENDED_LENGTH = 15
MAX_LENGTH = 256

_hasher = PasswordHasher()
# argon2 at most this many at once in the process: each takes 64 MiB, and a burst of sign-ins on
# the thread pool would otherwise take that many times over.
MAX_AT_ONCE = 2
_at_once = threading.BoundedSemaphore(MAX_AT_ONCE)


@cache
def _common() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"])


def check(password: str, name: str = "") -> None:
    """Raise Invalid("password", …) unless the password may be used."""
    length = len(password)
    if length < MIN_LENGTH:
        raise Invalid(
            "password",
            f"a password needs at least {MIN_LENGTH} characters ({RECOMMENDED_LENGTH} or more is better)",
        )
    if length > MAX_LENGTH:
        raise Invalid("password", f"a password has at most {MAX_LENGTH} characters")
    if password.lower() in _common() or (name and password.lower() == name.lower()):
        raise Invalid("password", "that password is too common to keep anyone out: choose another")


def hash_password(password: str) -> str:
    with _at_once:
        return _hasher.hash(password)


def new_hash(password: str, name: str) -> str:
    """The hash to store for a new password of `name`'s, once it passes the rules."""
    check(password, name)
    return hash_password(password)


def verify(stored_hash: str | None, password: str) -> bool:
    if stored_hash is None:
        return False
    try:
        with _at_once:
            return _hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash: str) -> bool:
    return _hasher.check_needs_rehash(stored_hash)


# Verified against when a name matches nobody, so a wrong name costs as long as a wrong password.
DUMMY_HASH = _hasher.hash("not-a-password-anyone-has")

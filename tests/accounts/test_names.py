"""The key that makes two names one: case, Unicode compatibility forms and look-alike letters
(the UTS #39 skeleton) all fold away; reserved names are declared once."""

import pytest

from app.accounts import names


@pytest.mark.parametrize(
    "look_alike",
    ["Admin", "ADMIN", "\u0430dmin", "\uff41\uff44\uff4d\uff49\uff4e", "adrnin", "\u0391DMIN"],
    ids=["capital", "all-capitals", "cyrillic-a", "fullwidth", "r-n-for-m", "greek-alpha"],
)
def test_look_alikes_share_a_key(look_alike: str) -> None:
    assert names.name_key(look_alike) == names.name_key("admin")


@pytest.mark.parametrize(
    ("one", "other"), [("b0b", "bob"), ("bam", "barn"), ("a1ice", "alice"), ("ALICE", "alice")]
)
def test_ascii_look_alikes_share_a_key(one: str, other: str) -> None:
    assert names.name_key(one) == names.name_key(other)


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("bob", "bobby"), ("ann", "anne")])
def test_different_names_keep_different_keys(one: str, other: str) -> None:
    assert names.name_key(one) != names.name_key(other)


@pytest.mark.parametrize("name", ["local", "admin", "Root", "SYSTEM", "\u0430dmin", "r00t"])
def test_reserved_names_and_their_look_alikes_are_reserved(name: str) -> None:
    assert names.is_reserved(name)


@pytest.mark.parametrize("name", ["alice", "admin-2", "local-2", "rooty"])
def test_ordinary_names_are_not_reserved(name: str) -> None:
    assert not names.is_reserved(name)

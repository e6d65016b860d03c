"""The key that makes two names one: case, Unicode compatibility forms and look-alike letters
(the UTS #39 skeleton) all fold away; reserved names are declared once."""

import pytest

from app.accounts import names
from app.exceptions import Invalid

pytestmark = pytest.mark.engine_agnostic


@pytest.mark.parametrize(
    "look_alike",
    ["Admin", "ADMIN", "\u0430dmin", "\uff41\uff44\uff4d\uff49\uff4e", "adrnin", "\u0391DMIN"],
    ids=["capital", "all-capitals", "cyrillic-a", "fullwidth", "r-n-for-m", "greek-alpha"],
)
def test_look_alikes_share_a_key(look_alike: str) -> None:
    assert names.name_key(look_alike) == names.name_key("admin")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("b0b", "bob"),
        ("bam", "barn"),
        ("a1ice", "alice"),
        ("ALICE", "alice"),
        ("AIice", "alice"),
        ("aIIce", "alice"),
        ("AL1CE", "alice"),
    ],
)
def test_ascii_look_alikes_share_a_key(one: str, other: str) -> None:
    assert names.name_key(one) == names.name_key(other)


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("bob", "bobby"), ("ann", "anne")])
def test_different_names_keep_different_keys(one: str, other: str) -> None:
    assert names.name_key(one) != names.name_key(other)


@pytest.mark.parametrize(
    "name", ["local", "admin", "Root", "SYSTEM", "\u0430dmin", "r00t", "Iocal", "LOCAL", "ADMlN", "sysadmIn"]
)
def test_reserved_names_and_their_look_alikes_are_reserved(name: str) -> None:
    assert names.is_reserved(name)


@pytest.mark.parametrize("name", ["alice", "admin-2", "local-2", "rooty"])
def test_ordinary_names_are_not_reserved(name: str) -> None:
    assert not names.is_reserved(name)


@pytest.mark.parametrize("name", ["bob\n", "", "-bob", "b" * 81, "bob smith", "bob\u200b"])
def test_a_name_outside_the_alphabet_is_refused(name: str) -> None:
    with pytest.raises(Invalid, match="a name is"):
        names.check_name(name)


def test_only_the_operator_may_take_a_reserved_name_and_nobody_the_solo_history() -> None:
    with pytest.raises(Invalid, match="reserved"):
        names.check_name("admin")
    assert names.check_name("admin", by_operator=True) == names.name_key("admin")
    with pytest.raises(Invalid, match="solo history"):
        names.check_name("Local", by_operator=True)

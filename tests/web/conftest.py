"""The accounts tests' team (alice and bob, members; root, an admin), for what differs by person."""

from tests.accounts.conftest import signed_in, team_app  # noqa: F401

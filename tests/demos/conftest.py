"""The accounts-mode app (alice, bob and an admin) for the demo tests that need two people."""

from tests.accounts.conftest import signed_in, team_app  # noqa: F401

"""The ways people sign in, declared once: settings accept exactly these names, and the settings
table of docs/configuration.md says each one in these words (tests/test_docs.py checks both)."""

from dataclasses import dataclass
from typing import Literal

AuthModeName = Literal["single", "accounts", "proxy"]


@dataclass(frozen=True)
class AuthMode:
    name: AuthModeName
    summary: str


AUTH_MODES: dict[str, AuthMode] = {
    mode.name: mode
    for mode in (
        AuthMode("single", "one local user, no sign-in; for one person on their own machine"),
        AuthMode("accounts", "local accounts with passwords and invites, and OIDC sign-in when configured"),
        AuthMode("proxy", "a reverse proxy signs people in and names them in a header"),
    )
}

"""The ways people sign in, declared once: settings validation, the CLI's messages and the
settings table of docs/configuration.md read this table."""

from dataclasses import dataclass
from typing import Literal

AuthModeName = Literal["single", "accounts", "proxy"]


@dataclass(frozen=True)
class AuthMode:
    name: AuthModeName
    summary: str
    # Whether the app shows its own sign-in page (single needs none; a proxy signs people in).
    own_sign_in: bool


AUTH_MODES: dict[str, AuthMode] = {
    mode.name: mode
    for mode in (
        AuthMode(
            "single", "one local user, no sign-in; for one person on their own machine", own_sign_in=False
        ),
        AuthMode(
            "accounts",
            "local accounts with passwords and invites, and OIDC sign-in when configured",
            own_sign_in=True,
        ),
        AuthMode("proxy", "a reverse proxy signs people in and names them in a header", own_sign_in=False),
    )
}

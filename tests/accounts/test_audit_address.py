"""Behind a real nginx, the audit log names the visitor (the X-Forwarded-For address nginx passes
on from a trusted chain), never nginx's own 127.0.0.1: for an export, in both formats, and for a
sign-in through the organisation's OpenID provider, which also creates the person."""

from collections.abc import Iterator

import httpx
import pytest

from tests.helpers.clients import with_csrf
from tests.helpers.nginx_proxy import VISITOR, Deployment, audited_addresses, behind_nginx
from tests.helpers.oidc import CLIENT_ID, CLIENT_SECRET, PEOPLE, REDIRECT_URI, OpenIdProvider, to_callback

# The provider sends the browser back to the one address registered with it; the app behind
# nginx names it through PUBLIC_URL, and the browser here takes it to nginx instead.
REGISTERED = REDIRECT_URI.removesuffix("/auth/oidc/callback")


@pytest.fixture(scope="module")
def oidc_deployment(
    tmp_path_factory: pytest.TempPathFactory,
    provider: OpenIdProvider,
) -> Iterator[Deployment]:
    env = {
        "AUTH_MODE": "accounts",
        "TRUSTED_PROXIES": "127.0.0.1/32",
        "PUBLIC_URL": REGISTERED,
        "OIDC_ISSUER_URL": provider.url,
        "OIDC_CLIENT_ID": CLIENT_ID,
        "OIDC_CLIENT_SECRET": CLIENT_SECRET,
    }
    with behind_nginx(tmp_path_factory, env, basic_auth=False) as found:
        yield found


def test_an_oidc_sign_in_and_an_export_behind_nginx_are_audited_with_the_visitors_address(
    oidc_deployment: Deployment,
) -> None:
    visitor = httpx.Client(
        base_url=oidc_deployment.nginx_url, headers={"X-Forwarded-For": VISITOR}, timeout=30
    )
    at_provider = httpx.Client(timeout=30)
    with visitor, at_provider:
        started = visitor.get("/auth/oidc/login", params={"next": "/progress"})
        assert started.status_code == 303, started.text
        callback = to_callback(
            at_provider, started.headers["location"], "carol", str(PEOPLE["carol"]["password"])
        )
        signed_in = visitor.get(callback.removeprefix(REGISTERED))
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/progress", signed_in.text
        assert visitor.get("/api/me").json()["name"] == "carol"

        with_csrf(visitor, "/progress")
        assert visitor.get("/api/export.json").status_code == 200
        assert visitor.get("/api/export.csv", params={"table": "reviews"}).status_code == 200

    addresses = audited_addresses(oidc_deployment.data_dir)
    for kind in ("user_created", "sign_in", "export"):
        assert addresses.get(kind) == {VISITOR}, (kind, addresses)

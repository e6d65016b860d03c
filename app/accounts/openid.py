"""OpenID Connect sign-in, the protocol side (AUTH_MODE=accounts with the three OIDC_* settings).

The authorization-code flow with PKCE (S256), state and nonce, through Authlib's httpx client.
What a sign-in in progress must remember (state, nonce, code verifier, where to go next) travels
in a signed cookie that lasts minutes, never in server memory, so any replica can finish a
sign-in another one started. The provider's discovery document and keys are kept for an hour.

Every refusal is a domain error: Forbidden when the person or the provider said no, Invalid when
the answer does not check out, Unavailable when the provider cannot be reached.
"""

import logging
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import httpx
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.httpx_client import OAuth2Client
from authlib.oidc.core import CodeIDToken
from itsdangerous import BadData, URLSafeTimedSerializer
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

from app.exceptions import Forbidden, Invalid, Unavailable
from app.settings import Settings

log = logging.getLogger("tiercards.accounts")

FLOW_MAX_AGE_S = 600
DISCOVERY_TTL_S = 3600
HTTP_TIMEOUT_S = 10.0
CLOCK_LEEWAY_S = 60
# Asymmetric signatures only: an ID token must be signed with a key the provider publishes.
ID_TOKEN_ALGORITHMS = [
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
    "Ed25519",
]
# "groups" is asked for only where the provider offers it: some refuse scopes they do not know.
WANTED_SCOPES = ("openid", "profile", "email", "groups")
METADATA_URLS = ("authorization_endpoint", "token_endpoint", "jwks_uri")
START_AGAIN = "start again from the sign-in page"


@dataclass(frozen=True)
class Flow:
    """One sign-in in progress, kept by the browser in a signed cookie."""

    state: str
    nonce: str
    verifier: str
    next: str


@dataclass(frozen=True)
class Identity:
    """Who the provider vouches for: `subject` is "issuer|sub", `name` what they would like to be called."""

    subject: str
    name: str
    groups: list[str]


@dataclass
class Provider:
    metadata: dict[str, Any]
    keys: KeySet
    fresh_until: float


_providers: dict[str, Provider] = {}


# --- the signed cookie ----------------------------------------------------------------------------


def _serializer(secret_key: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret_key, salt="tiercards.oidc-flow")


def seal(flow: Flow, secret_key: str) -> str:
    return _serializer(secret_key).dumps(asdict(flow))


def unseal(value: str | None, secret_key: str) -> Flow:
    """The flow this browser started, if its cookie is ours and younger than FLOW_MAX_AGE_S."""
    try:
        return Flow(**_serializer(secret_key).loads(value or "", max_age=FLOW_MAX_AGE_S))
    except (BadData, TypeError) as error:
        raise Invalid(
            "state", f"no sign-in was started in this browser, or it took too long: {START_AGAIN}"
        ) from error


# --- the provider ---------------------------------------------------------------------------------


def _unreachable(what: str, error: Exception) -> Unavailable:
    log.warning("OIDC: %s failed: %r", what, error)
    return Unavailable("your organisation's sign-in service cannot be reached: try again later")


def _get_json(url: str) -> dict[str, Any]:
    try:
        response = httpx.get(url, timeout=HTTP_TIMEOUT_S)
        response.raise_for_status()
        body = response.json()
    except (httpx.HTTPError, ValueError) as error:
        raise _unreachable(f"GET {url}", error) from error
    if not isinstance(body, dict):
        raise _unreachable(f"GET {url}", ValueError("not a JSON object"))
    return body


def _keys(jwks_uri: str) -> KeySet:
    try:
        return KeySet.import_key_set(_get_json(jwks_uri))  # type: ignore[arg-type]
    except (JoseError, ValueError, TypeError) as error:
        raise _unreachable(f"reading the keys at {jwks_uri}", error) from error


def _discover(issuer: str) -> Provider:
    metadata = _get_json(f"{issuer.rstrip('/')}/.well-known/openid-configuration")
    # The document must speak for the issuer it was fetched from (OpenID Connect Discovery 4.3).
    if str(metadata.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
        raise _unreachable("discovery", ValueError(f"it names the issuer {metadata.get('issuer')!r}"))
    if not all(isinstance(metadata.get(key), str) for key in METADATA_URLS):
        raise _unreachable("discovery", ValueError(f"it lacks one of {', '.join(METADATA_URLS)}"))
    return Provider(metadata, _keys(metadata["jwks_uri"]), time.monotonic() + DISCOVERY_TTL_S)


def provider(issuer: str) -> Provider:
    known = _providers.get(issuer)
    if known is None or known.fresh_until < time.monotonic():
        known = _providers[issuer] = _discover(issuer)
    return known


def _client(settings: Settings, *, found: Provider, redirect_uri: str) -> OAuth2Client:
    offered = found.metadata.get("scopes_supported") or WANTED_SCOPES
    scope = " ".join(s for s in WANTED_SCOPES if s == "openid" or s in offered)
    return OAuth2Client(
        settings.oidc_client_id,
        settings.oidc_client_secret,
        scope=scope,
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        timeout=HTTP_TIMEOUT_S,
    )


# --- the flow -------------------------------------------------------------------------------------


def start(settings: Settings, *, redirect_uri: str, next_path: str) -> tuple[str, Flow]:
    """Where to send the browser, and the flow to remember until it comes back."""
    found = provider(settings.oidc_issuer_url)
    flow = Flow(
        state=generate_token(32), nonce=generate_token(32), verifier=generate_token(64), next=next_path
    )
    with _client(settings, found=found, redirect_uri=redirect_uri) as client:
        url, _ = client.create_authorization_url(
            found.metadata["authorization_endpoint"],
            state=flow.state,
            code_verifier=flow.verifier,
            nonce=flow.nonce,
        )
    return url, flow


def finish(settings: Settings, *, flow: Flow, answer: Mapping[str, str], redirect_uri: str) -> Identity:
    """Check the provider's answer (the callback's query), trade its code for tokens, validate
    the ID token, and say who signed in."""
    found = provider(settings.oidc_issuer_url)
    _check_answer(answer, flow=flow, issuer=found.metadata["issuer"])
    with _client(settings, found=found, redirect_uri=redirect_uri) as client:
        token = _exchange(client, found=found, code=answer["code"], verifier=flow.verifier)
        claims = id_token_claims(found, token=token, nonce=flow.nonce, client_id=settings.oidc_client_id)
        # The ID token is signed, so its claims win; user info adds what it left out (often groups).
        claims = {**_userinfo(client, found=found, sub=claims["sub"]), **claims}
    return _identity(claims, issuer=found.metadata["issuer"], groups_claim=settings.oidc_groups_claim)


def _same(sent: str, expected: str) -> bool:
    return secrets.compare_digest(sent.encode(), expected.encode())


def _check_answer(answer: Mapping[str, str], *, flow: Flow, issuer: str) -> None:
    # Nothing in an answer is believed before its state proves it belongs to this browser's flow.
    if not _same(answer.get("state", ""), flow.state):
        raise Invalid(
            "state", f"this answer does not belong to the sign-in started in this browser: {START_AGAIN}"
        )
    error = answer.get("error")
    if error == "access_denied":
        raise Forbidden("the sign-in was cancelled or refused at your organisation's sign-in service")
    if error:
        code = error if re.fullmatch(r"[A-Za-z0-9_.-]{1,60}", error) else "an unknown error"
        raise Invalid(
            "error", f"your organisation's sign-in service refused the sign-in ({code}): {START_AGAIN}"
        )
    # RFC 9207: an answer naming another issuer was meant for another provider (a mix-up attack).
    if "iss" in answer and not _same(answer["iss"], issuer):
        raise Invalid("iss", f"this answer comes from another sign-in service: {START_AGAIN}")
    if not answer.get("code"):
        raise Invalid("code", f"the sign-in service sent no code: {START_AGAIN}")


def _exchange(client: OAuth2Client, *, found: Provider, code: str, verifier: str) -> dict[str, Any]:
    try:
        token: dict[str, Any] = client.fetch_token(
            found.metadata["token_endpoint"],
            grant_type="authorization_code",
            code=code,
            code_verifier=verifier,
        )
    except OAuthError as error:  # a used or expired code, a wrong verifier
        raise Invalid(
            "code", f"the sign-in service did not accept this sign-in ({error.error}): {START_AGAIN}"
        ) from error
    except (httpx.HTTPError, ValueError) as error:
        raise _unreachable("the token request", error) from error
    return token


def _decode(id_token: str, found: Provider) -> jwt.Token:
    registry = JWSRegistry(algorithms=ID_TOKEN_ALGORITHMS)
    try:
        return jwt.decode(id_token, found.keys, registry=registry)
    except InvalidKeyIdError:  # signed with a key published since we fetched them: a rotation
        found.keys = _keys(found.metadata["jwks_uri"])
        return jwt.decode(id_token, found.keys, registry=registry)


def id_token_claims(
    found: Provider, *, token: Mapping[str, Any], nonce: str, client_id: str
) -> dict[str, Any]:
    """The ID token's claims once its signature, issuer, audience, nonce and times check out."""
    id_token = token.get("id_token")
    if not isinstance(id_token, str):
        raise Invalid("id_token", f"the sign-in service sent no ID token: {START_AGAIN}")
    try:
        decoded = _decode(id_token, found)
        claims = CodeIDToken(
            decoded.claims,
            decoded.header,
            {
                "iss": {"essential": True, "value": found.metadata["issuer"]},
                "aud": {"essential": True, "value": client_id},
            },
            {"nonce": nonce, "client_id": client_id, "access_token": token.get("access_token")},
        )
        claims.validate(leeway=CLOCK_LEEWAY_S)
    except (JoseError, ValueError) as error:
        log.warning("OIDC: ID token refused: %r", error)
        raise Invalid(
            "id_token", f"the sign-in service's ID token does not check out: {START_AGAIN}"
        ) from error
    if not isinstance(claims.get("sub"), str):
        raise Invalid("id_token", f"the ID token names nobody: {START_AGAIN}")
    return dict(claims)


def _userinfo(client: OAuth2Client, *, found: Provider, sub: str) -> dict[str, Any]:
    endpoint = found.metadata.get("userinfo_endpoint")
    if not isinstance(endpoint, str):
        return {}
    try:
        response = client.get(endpoint)
        response.raise_for_status()
        info = response.json()
    except (httpx.HTTPError, ValueError, OAuthError) as error:
        raise _unreachable("the user info request", error) from error
    # Only user info about the person in the ID token may be used (OpenID Connect Core 5.3.2).
    if not isinstance(info, dict) or info.get("sub") != sub:
        raise Invalid("userinfo", f"the sign-in service's user info is about someone else: {START_AGAIN}")
    return info


def _identity(claims: Mapping[str, Any], *, issuer: str, groups_claim: str) -> Identity:
    sub: str = claims["sub"]
    wanted = (claims.get("preferred_username"), claims.get("email"), sub)
    name = next((value for value in wanted if isinstance(value, str) and value.strip()), sub)
    groups = claims.get(groups_claim)
    if isinstance(groups, str):
        groups = [groups]
    listed = [group for group in groups if isinstance(group, str)] if isinstance(groups, list) else []
    return Identity(f"{issuer}|{sub}", name.strip(), listed)

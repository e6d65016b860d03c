"""/metrics for Prometheus, and the route a request is counted and logged under.

Prometheus cannot sign in, so /metrics asks for no sign-in; it answers only those METRICS_ALLOWED
names (loopback unless set), and is a plain 404 to anyone else.
"""

import asyncio
import ipaddress
from collections.abc import Iterable
from http import HTTPStatus

from fastapi import APIRouter, Depends, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool
from starlette.types import Scope

from app.demos import figures as demo_figures
from app.exceptions import NotFound
from app.metrics import exposition
from app.ops.probes import ProbesDep
from app.settings import IPNetwork
from app.speech import figures as speech_figures
from app.web.dependencies import SettingsDep
from app.web.guards import peer_in

# Headers a proxy adds to what it passes on; a scraper asking directly sends none of them.
FORWARDING_HEADERS = frozenset(
    {b"forwarded", b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host", b"x-real-ip"}
)


def may_scrape(scope: Scope, allowed: Iterable[IPNetwork], proxies: Iterable[IPNetwork]) -> bool:
    """Whether the one asking is in `allowed`.

    Asked directly, that is the connection's own address. A request a proxy passed on is judged by
    the visitor the proxy names in X-Forwarded-For, believed only from TRUSTED_PROXIES (the guard
    put it in `client_address`); one passed on without such a name is refused, since through a
    proxy on this machine anyone on the internet would otherwise ask from loopback.
    """
    allowed = tuple(allowed)
    sent = {name for name, _ in scope["headers"]}
    if sent.isdisjoint(FORWARDING_HEADERS):
        return peer_in(scope, allowed)
    if b"x-forwarded-for" not in sent or not peer_in(scope, proxies):
        return False
    visitor = scope["state"].get("client_address")
    return visitor is not None and any(ipaddress.ip_address(visitor) in network for network in allowed)


async def require_scraper(request: Request, settings: SettingsDep) -> None:
    if not may_scrape(request.scope, settings.metrics_allowed, settings.trusted_proxies):
        # What any unknown path gets, word for word: nothing to learn here.
        raise NotFound(HTTPStatus.NOT_FOUND.phrase)


router = APIRouter(dependencies=[Depends(require_scraper)])


@router.get("/metrics", response_class=Response)
async def metrics(probes: ProbesDep) -> Response:
    (figures, _), (depth, _), (recordings, _), (speech_depth, _) = await asyncio.gather(
        probes.demo_figures.outcome(),
        probes.queue_depth.outcome(),
        probes.recording_figures.outcome(),
        probes.speech_queue_depth.outcome(),
    )
    # Adding up every process's files is file work: off the loop.
    shared = (*demo_figures.gauges(figures, depth), *speech_figures.gauges(recordings, speech_depth))
    body = await run_in_threadpool(exposition, shared)
    return Response(body, media_type=CONTENT_TYPE_LATEST)

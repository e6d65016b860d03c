"""The app's pacing of coverage checks (app/coverage/pacing.py), for the coverage API."""

from typing import Annotated

from fastapi import Depends, Request

from app.coverage.pacing import Pacing


# Async so it runs on the event loop, where no two requests can both find none and build one.
async def get_pacing(request: Request) -> Pacing:
    """This app's pacing, built on first use from COVERAGE_CHECKS_PER_MINUTE."""
    state = request.app.state
    pacing: Pacing | None = getattr(state, "coverage_pacing", None)
    if pacing is None:
        pacing = Pacing(per_minute=state.settings.coverage_checks_per_minute)
        state.coverage_pacing = pacing
    return pacing


PacingDep = Annotated[Pacing, Depends(get_pacing)]

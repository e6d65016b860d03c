"""Boxes one area adds to another's page without either importing the other, as Datasette's
plugins add to a page through hooks: a page names a slot and what it offers the hooks there (the
session, who is asking, ...), app/factory.py says which hooks fill which slot, and the page's
template includes each panel a hook returned, in order.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, Request


@dataclass(frozen=True)
class Panel:
    # A template included in the page, with these names added to the page's own.
    template: str
    context: Mapping[str, Any] = field(default_factory=dict)


# Called with the slot's offered names as keywords; None when it has nothing to show this time.
PanelHook = Callable[..., Panel | None]


@dataclass(frozen=True)
class Panels:
    hooks: Mapping[str, Sequence[PanelHook]] = field(default_factory=dict)

    def fill(self, slot: str, **offered: Any) -> list[Panel]:
        return [panel for hook in self.hooks.get(slot, ()) if (panel := hook(**offered)) is not None]


def panels_of(request: Request) -> Panels:
    panels: Panels = request.app.state.panels
    return panels


async def app_panels(request: Request) -> Panels:
    return panels_of(request)  # async: no hop to the thread pool (app/web/dependencies.py)


PanelsDep = Annotated[Panels, Depends(app_panels)]

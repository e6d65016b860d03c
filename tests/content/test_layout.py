"""How content, presets and the metrics module are divided: their functions take a third option
only by name, none is named for the refusal it answers, and the cards' JSON routes live in the
content api module."""

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from types import ModuleType

import pytest
from fastapi.routing import APIRoute

import app.content
import app.presets

pytestmark = pytest.mark.engine_agnostic

# Signatures a framework fixes: a Jinja context filter and the markdown highlighter's callback.
FIXED = {"app.content.filters.noted", "app.content.render._highlight"}
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _service_modules() -> Iterator[ModuleType]:
    yield importlib.import_module("app.metrics")
    for package in (app.content, app.presets):
        yield package
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if info.name.endswith((".dependencies", ".errors")) or ".routers" in info.name:
                continue
            yield importlib.import_module(info.name)


def _functions(module: ModuleType) -> Iterator[tuple[str, object]]:
    """The module's own functions and its classes' methods, by dotted name."""
    for name, value in vars(module).items():
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            yield f"{module.__name__}.{name}", value
        elif inspect.isclass(value) and not issubclass(value, Exception):
            for method_name, method in vars(value).items():
                # Dunders are the constructors dataclasses and named tuples write.
                if inspect.isfunction(method) and not method_name.startswith("__"):
                    yield f"{module.__name__}.{name}.{method_name}", method


def test_content_presets_and_metrics_take_a_third_option_only_by_name() -> None:
    crowded = []
    for module in _service_modules():
        for name, function in _functions(module):
            params = [
                p for p in inspect.signature(function).parameters.values() if p.name not in ("self", "cls")
            ]
            if name not in FIXED and len(params) > 2 and sum(p.kind in POSITIONAL for p in params) > 1:
                crowded.append(name)
    assert crowded == []


def test_no_content_name_says_which_refusal_it_answers() -> None:
    dependencies = importlib.import_module("app.content.dependencies")
    assert [name for name in vars(dependencies) if name.endswith(("_or_404", "_or_422"))] == []


def test_the_cards_json_routes_live_in_the_content_api_module() -> None:
    def paths(module: str) -> set[str]:
        router = importlib.import_module(f"app.content.routers.{module}").router
        return {route.path for route in router.routes if isinstance(route, APIRoute)}

    assert paths("api") == {"/api/cards", "/api/cards/{card_id}"}
    assert paths("pages") == {"/"}

"""What demos adds to every template: the card page's "Run it live" forms, the same for everyone,
so the cached page can hold them."""

from jinja2 import Environment

from app.demos.presenters.forms import preset_forms


def register(env: Environment) -> None:
    env.globals["demo_forms"] = preset_forms

"""Validation errors as the sentences a page shows, each naming the field as the page labels it.

Only pages read these; the JSON API keeps pydantic's structured 422 body.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from app.exceptions import Invalid, in_words


def sentence(text: str) -> str:
    """Capitalised and closed with a full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else f"{text}."


def _choices(ctx: Mapping[str, Any]) -> str:
    # pydantic quotes each choice ("'again', 'hard', 'good' or 'easy'"); an empty one stands for
    # "any" in a filter and is no choice to offer.
    return in_words(tuple(name for name in re.findall(r"'([^']*)'", str(ctx.get("expected", ""))) if name))


def _too_short(label: str, ctx: Mapping[str, Any]) -> str:
    least = ctx.get("min_length", 1)
    return f"{label} is empty" if least == 1 else f"{label} needs at least {least} characters"


# What each kind of pydantic error says about the field labelled `label`.
_SAYS: dict[str, Callable[[str, Mapping[str, Any]], str]] = {
    "missing": lambda label, ctx: f"{label} is required",
    "string_too_short": _too_short,
    "string_too_long": lambda label, ctx: f"{label} must be at most {ctx['max_length']} characters",
    "too_long": lambda label, ctx: f"{label} may have at most {ctx['max_length']} items",
    "less_than_equal": lambda label, ctx: f"{label} must be at most {ctx['le']}",
    "greater_than_equal": lambda label, ctx: f"{label} must be at least {ctx['ge']}",
    "less_than": lambda label, ctx: f"{label} must be less than {ctx['lt']}",
    "greater_than": lambda label, ctx: f"{label} must be more than {ctx['gt']}",
    "float_parsing": lambda label, ctx: f"{label} must be a number",
    "float_type": lambda label, ctx: f"{label} must be a number",
    "int_parsing": lambda label, ctx: f"{label} must be a whole number",
    "int_type": lambda label, ctx: f"{label} must be a whole number",
    "int_from_float": lambda label, ctx: f"{label} must be a whole number",
    "literal_error": lambda label, ctx: f"{label} must be {_choices(ctx)}",
    "enum": lambda label, ctx: f"{label} must be {_choices(ctx)}",
}


def describe(error: Mapping[str, Any], label: str) -> str:
    """One pydantic-style error as a sentence about the field labelled `label`."""
    says = _SAYS.get(str(error.get("type")))
    if says is not None:
        return sentence(says(label, error.get("ctx") or {}))
    # Our own validators (and the services' refusals) already write for people.
    return sentence(f"{label}: {str(error.get('msg')).removeprefix('Value error, ')}")


def _errors(error: ValidationError | Invalid) -> Iterable[Mapping[str, Any]]:
    if isinstance(error, ValidationError):
        return error.errors()
    return [{"loc": tuple(error.field.split(".")), "msg": error.message, "type": "refused"}]


def form_messages(
    error: ValidationError | Invalid,
    labels: Mapping[str, str],
    unreadable: str,
    fixed: Mapping[str, str] | None = None,
) -> list[str]:
    """What a form shows for a refused submit, one sentence a problem.

    `labels` names each field the person fills in as the page labels it; `fixed` gives fields
    whose every problem reads one way ("Choose how it went: …"). Any other field is one the page
    fills in itself (a hidden field, the timer), so a problem there reads as `unreadable`: the
    person can only send the form again.
    """
    fixed = fixed or {}
    lines: list[str] = []
    for item in _errors(error):
        field = str(item["loc"][0]) if item.get("loc") else ""
        if field in fixed:
            line = sentence(fixed[field])
        elif field in labels:
            line = describe(item, labels[field])
        else:
            line = sentence(unreadable)
        if line not in lines:
            lines.append(line)
    return lines

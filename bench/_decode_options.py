"""`--option NAME=VALUE` for the speech benchmarks: faster-whisper decoding options to measure
against the defaults (app.speech.recogniser.DECODE_OPTIONS), as `transcribe(..., options=...)` takes them."""

import argparse
import json
from typing import Any


def add_option_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a faster-whisper transcribe option, VALUE as JSON (true, 0.5, [0, 3.2]) or a word",
    )


def decode_options(given: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in given:
        name, _, value = item.partition("=")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    return options

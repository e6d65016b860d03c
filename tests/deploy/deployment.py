"""Reading the deployment files as Docker would: compose.yaml with its ${…} variables, the
Dockerfile's stages, the start-up scripts in deploy/ and the `tiercards` commands they run.

No Docker engine runs where these tests do, so what Docker would do with these files is worked
out here and checked against the app itself (its settings, its command line)."""

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer.main
import yaml

from app import PROJECT_ROOT
from app.cli import cli

COMPOSE_FILE = PROJECT_ROOT / "compose.yaml"
DOCKERFILE = PROJECT_ROOT / "Dockerfile"
NGINX_CONF = PROJECT_ROOT / "deploy" / "nginx" / "tiercards.conf"
# Where the images keep deploy/ (the Dockerfile's WORKDIR and COPY).
IMAGE_DEPLOY_DIR = "/srv/tiercards/deploy/"

_VARIABLE = re.compile(r"\$\$|\$\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|\$(?P<bare>\w+)")


class MissingVariable(Exception):
    pass


def interpolate(text: str, variables: dict[str, str]) -> str:
    """compose's ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}, $$."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("name") or match.group("bare")
        op, arg = match.group("op"), match.group("arg") or ""
        value = variables.get(name)
        unset = value is None or (value == "" and op is not None and op.startswith(":"))
        if op in ("-", ":-") and unset:
            return arg
        if op in ("?", ":?") and unset:
            raise MissingVariable(f"{name}: {arg}")
        return value or ""

    return _VARIABLE.sub(replace, text)


def _interpolated(node: Any, variables: dict[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, variables)
    if isinstance(node, list):
        return [_interpolated(item, variables) for item in node]
    if isinstance(node, dict):
        return {key: _interpolated(value, variables) for key, value in node.items()}
    return node


def compose(variables: dict[str, str] | None = None) -> dict[str, Any]:
    """compose.yaml as a dict, anchors merged; with `variables`, every ${…} replaced."""
    document: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())
    return document if variables is None else _interpolated(document, variables)


def tiercards_services(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services built from this repository's Dockerfile."""
    return {name: service for name, service in document["services"].items() if "build" in service}


@dataclass
class Stage:
    name: str
    base: str
    # (instruction, arguments), continuation lines joined.
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, instruction: str) -> list[str]:
        return [arguments for name, arguments in self.instructions if name == instruction]

    def last(self, instruction: str) -> str | None:
        found = self.all(instruction)
        return found[-1] if found else None


def _logical_lines(text: str) -> list[str]:
    """Comment lines dropped, backslash continuations joined, heredoc bodies kept as one line."""
    lines: list[str] = []
    current = ""
    heredoc: str | None = None
    for raw in text.splitlines():
        if heredoc is not None:
            current += "\n" + raw
            if raw.strip() == heredoc:
                lines.append(current)
                current, heredoc = "", None
            continue
        if not current and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        if raw.endswith("\\"):
            current += raw[:-1] + " "
            continue
        current += raw
        marker = re.search(r"<<-?'?(\w+)'?", current)
        if marker:
            heredoc = marker.group(1)
            continue
        lines.append(current)
        current = ""
    return lines


def dockerfile() -> tuple[dict[str, str], dict[str, Stage]]:
    """The Dockerfile's global ARG defaults and its stages by name."""
    args: dict[str, str] = {}
    stages: dict[str, Stage] = {}
    stage: Stage | None = None
    for line in _logical_lines(DOCKERFILE.read_text()):
        instruction, _, arguments = line.strip().partition(" ")
        instruction, arguments = instruction.upper(), arguments.strip()
        if instruction == "FROM":
            image, _, name = arguments.partition(" AS ")
            base = interpolate(image.strip(), args)
            stage = Stage(name.strip(), base)
            stages[stage.name] = stage
        elif stage is None and instruction == "ARG":
            key, _, value = arguments.partition("=")
            args[key] = value
        elif stage is not None:
            stage.instructions.append((instruction, arguments))
    return args, stages


def lineage(stages: dict[str, Stage], target: str) -> list[Stage]:
    """A target stage and the stages it is built FROM, the target first."""
    chain = [stages[target]]
    while chain[-1].base in stages:
        chain.append(stages[chain[-1].base])
    return chain


def inherited(stages: dict[str, Stage], target: str, instruction: str) -> str | None:
    """The instruction's value in effect in a target (its own, else its bases')."""
    for stage in lineage(stages, target):
        value = stage.last(instruction)
        if value is not None:
            return value
    return None


def exec_form(arguments: str) -> list[str]:
    """A CMD or HEALTHCHECK's command: its JSON exec form, options before CMD left out."""
    if arguments.startswith("--") or arguments.startswith("CMD "):
        arguments = arguments[arguments.index("CMD ") + 4 :]
    command: list[str] = json.loads(arguments)
    return command


def service_command(document: dict[str, Any], name: str) -> list[str]:
    """What a compose service runs: its `command`, else its image target's CMD."""
    service = document["services"][name]
    if "command" in service:
        command: list[str] = service["command"]
        return command
    _, stages = dockerfile()
    cmd = inherited(stages, service["build"]["target"], "CMD")
    assert cmd is not None, f"{name}: its image has no CMD"
    return exec_form(cmd)


def service_health_check(document: dict[str, Any], name: str) -> list[str]:
    """A compose service's health check command: its own, else its image target's HEALTHCHECK."""
    service = document["services"][name]
    if "healthcheck" in service:
        test: list[str] = service["healthcheck"]["test"]
        assert test[0] == "CMD", f"{name}: a health check in exec form"
        return test[1:]
    _, stages = dockerfile()
    healthcheck = inherited(stages, service["build"]["target"], "HEALTHCHECK")
    assert healthcheck is not None, f"{name}: its image has no HEALTHCHECK"
    return exec_form(healthcheck)


def script_path(command: list[str]) -> Path:
    """The deploy/ script an image command runs, in this checkout."""
    assert len(command) == 1 and command[0].startswith(IMAGE_DEPLOY_DIR), command
    return PROJECT_ROOT / "deploy" / command[0].removeprefix(IMAGE_DEPLOY_DIR)


def here(command: list[str]) -> list[str]:
    """An image's command as it runs from this checkout: its deploy/ script from here, or the
    `tiercards` command as it is."""
    return command if command[0] == "tiercards" else [str(script_path(command))]


_SHELL_DEFAULT = re.compile(r"\$\{\w+:-([^}]*)\}")


def tiercards_invocations(script: Path) -> list[list[str]]:
    """Every `tiercards …` command line in a shell script, with ${VAR:-default} at its default."""
    found = []
    for line in script.read_text().splitlines():
        words = shlex.split(_SHELL_DEFAULT.sub(r"\1", line), comments=True)
        if words[:1] == ["exec"]:
            words = words[1:]
        if words[:1] == ["tiercards"]:
            found.append(words)
    return found


def check_cli(words: list[str]) -> None:
    """Parse a `tiercards …` command line with the app's own command line, without running it:
    raises for an unknown command, an unknown option or a bad value."""
    assert words[0] == "tiercards", words
    command: Any = typer.main.get_command(cli)
    rest = words[1:]
    while hasattr(command, "commands"):
        if not rest or rest[0] not in command.commands:
            raise ValueError(f"{' '.join(words)!r}: tiercards has no such command")
        command, rest = command.commands[rest[0]], rest[1:]
    command.make_context(" ".join(words[: len(words) - len(rest)]), list(rest))


def _docker_pattern(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it: `**` any folders, `*` and `?` within one name."""
    regex = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            regex, index = regex + "(?:.*/)?", index + 3
        elif pattern.startswith("**", index):
            regex, index = regex + ".*", index + 2
        elif pattern[index] == "*":
            regex, index = regex + "[^/]*", index + 1
        elif pattern[index] == "?":
            regex, index = regex + "[^/]", index + 1
        elif pattern[index] == "[":
            end = pattern.index("]", index)
            regex, index = regex + pattern[index : end + 1], end + 1
        else:
            regex, index = regex + re.escape(pattern[index]), index + 1
    return re.compile(regex)


def _dockerignore() -> list[str]:
    lines = (PROJECT_ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def in_build_context(path: str) -> bool:
    """Whether `docker build .` sends this file (a path relative to the checkout): the last
    .dockerignore pattern that matches it or one of its folders decides."""
    parts = path.split("/")
    sent = True
    for pattern in _dockerignore():
        regex = _docker_pattern(pattern.removeprefix("!"))
        if any(regex.fullmatch("/".join(parts[:end])) for end in range(1, len(parts) + 1)):
            sent = pattern.startswith("!")
    return sent


def copy_build_context(destination: Path) -> None:
    """The files `docker build .` would send, copied to `destination`."""
    reincluded = [pattern[1:] for pattern in _dockerignore() if pattern.startswith("!")]
    for folder, subfolders, files in os.walk(PROJECT_ROOT):
        relative = Path(folder).relative_to(PROJECT_ROOT).as_posix()
        relative = "" if relative == "." else relative
        # Leave out folders that are excluded with nothing inside them let back in (.venv is large).
        subfolders[:] = [
            name
            for name in subfolders
            if in_build_context(f"{relative}/{name}".lstrip("/"))
            or any(pattern.startswith(f"{relative}/{name}/".lstrip("/")) for pattern in reincluded)
        ]
        for name in files:
            path = f"{relative}/{name}".lstrip("/")
            if in_build_context(path):
                (destination / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(PROJECT_ROOT / path, destination / path)

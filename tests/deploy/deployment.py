"""Reading the deployment files as Docker would: compose.yaml (and the compose.debian.yaml
override) with their ${…} variables, the Dockerfiles' stages and build arguments, the nginx
template as the nginx image renders it, the start-up scripts in deploy/ and the `tiercards`
commands they run.

These tests run without a Docker engine (tests/containers/ runs the real containers), so what
Docker would do with these files is worked out here and checked against the app itself (its
settings, its command line)."""

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer.main
import yaml

from app import PROJECT_ROOT
from app.cli import cli
from tests import nginx

COMPOSE_FILE = PROJECT_ROOT / "compose.yaml"
# The override for a machine that reaches no image registry.
COMPOSE_DEBIAN_FILE = PROJECT_ROOT / "compose.debian.yaml"
DOCKERFILE = PROJECT_ROOT / "Dockerfile"
DEBIAN_DOCKERFILE = PROJECT_ROOT / "deploy" / "debian" / "Dockerfile"
# Mounted into the proxy as a template of the nginx image: its variables are put in at start.
NGINX_TEMPLATE = PROJECT_ROOT / "deploy" / "nginx" / "tiercards.conf.template"
# Writes the images' requirements files (the Dockerfile's builder stage runs it).
REQUIREMENTS_SCRIPT = PROJECT_ROOT / "deploy" / "requirements.py"
# Where the images keep deploy/ (the Dockerfile's WORKDIR and COPY).
IMAGE_DEPLOY_DIR = "/srv/tiercards/deploy/"
# Where the nginx config reads its certificate (the proxy service mounts TLS_DIR there).
IMAGE_TLS_DIR = "/etc/nginx/tls/"

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


_SUBSTITUTED = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))")


def envsubst(text: str, variables: dict[str, str]) -> str:
    """`envsubst '${A} ${B} …'`, as the nginx image runs it on a template with its environment's
    names (and as a build puts a stage's ARGs in): ${NAME} and $NAME replaced for the names
    given, every other $… (nginx's $host, $scheme) left as it is."""

    def replace(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        return variables[name] if name in variables else match.group(0)

    return _SUBSTITUTED.sub(replace, text)


def nginx_directives(text: str) -> list[str]:
    """An nginx config's directives and block openings in order, comments dropped, each with its
    whitespace made single spaces (`server 127.0.0.1:8001 max_fails=1 fail_timeout=5s`)."""
    text = re.sub(r"#[^\n]*", "", text)
    return [" ".join(statement.split()) for statement in re.split(r"[;{}]", text) if statement.strip()]


def nginx_front(folder: Path, *, environment: dict[str, str], common_name: str, http: str = "") -> Path:
    """The proxy as it runs outside Docker: the nginx template rendered with `environment` (the
    proxy service's, with this machine's ports), its certificate folder moved into `folder` and a
    fresh self-signed certificate for `common_name` there, included in the http block (with
    `http` before it) that the nginx image's own nginx.conf would give it. The main config."""
    folder.mkdir()
    conf = envsubst(NGINX_TEMPLATE.read_text(), environment)
    assert "${" not in conf, f"the template names a variable the environment lacks: {conf}"
    assert IMAGE_TLS_DIR in conf, f"the template reads no certificate from {IMAGE_TLS_DIR}"
    (folder / "tiercards.conf").write_text(conf.replace(IMAGE_TLS_DIR, f"{folder}/tls/"))
    (folder / "tls").mkdir()
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={common_name}",
         "-keyout", folder / "tls" / "privkey.pem", "-out", folder / "tls" / "fullchain.pem"],
        check=True, capture_output=True,
    )  # fmt: skip
    return nginx.main_conf(folder, f"{http}\n    include {folder}/tiercards.conf;")


def requirements_files(folder: Path) -> dict[str, list[str]]:
    """What deploy/requirements.py's main() writes into `folder` from pyproject.toml (as the
    Dockerfile's builder stage runs it): each file's lines by its name (web, worker, gpu)."""
    spec = importlib.util.spec_from_file_location("deploy_requirements", REQUIREMENTS_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(str(PROJECT_ROOT / "pyproject.toml"), str(folder))
    return {
        path.name.removesuffix(".txt"): path.read_text().splitlines() for path in sorted(folder.glob("*.txt"))
    }


def _interpolated(node: Any, variables: dict[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, variables)
    if isinstance(node, list):
        return [_interpolated(item, variables) for item in node]
    if isinstance(node, dict):
        return {key: _interpolated(value, variables) for key, value in node.items()}
    return node


def compose(variables: dict[str, str] | None = None, file: Path = COMPOSE_FILE) -> dict[str, Any]:
    """A compose file (compose.yaml unless told) as a dict, anchors merged; with `variables`,
    every ${…} replaced."""
    document: dict[str, Any] = yaml.safe_load(file.read_text())
    return document if variables is None else _interpolated(document, variables)


def merged(base: Any, override: Any) -> Any:
    """`docker compose -f base -f override` for the keys compose.debian.yaml sets: mappings
    (services, build, args) merged key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(override, dict):
        return {
            **base,
            **{key: merged(base[key], value) if key in base else value for key, value in override.items()},
        }
    return override


def tiercards_services(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services built from this repository's Dockerfile (the build context is the checkout)."""
    return {
        name: service
        for name, service in document["services"].items()
        if service.get("build", {}).get("context") == "."
    }


def web_replicas(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tiercards services that run a web replica (the web image's start-web.sh)."""
    return {
        name: service
        for name, service in tiercards_services(document).items()
        if service_command(document, name) == [f"{IMAGE_DEPLOY_DIR}start-web.sh"]
    }


@dataclass
class Stage:
    name: str
    base: str
    # (instruction, arguments), continuation lines joined, as written.
    instructions: list[tuple[str, str]] = field(default_factory=list)
    # The ARGs this stage declares, at the build's value (its build argument, else the default).
    args: dict[str, str] = field(default_factory=dict)

    def all(self, instruction: str) -> list[str]:
        return [arguments for name, arguments in self.instructions if name == instruction]

    def resolved(self) -> list[tuple[str, str]]:
        """The instructions with the stage's ARGs put in, as the build runs them."""
        return [(name, envsubst(arguments, self.args)) for name, arguments in self.instructions]

    def last(self, instruction: str) -> str | None:
        found = self.all(instruction)
        return found[-1] if found else None


def _logical_lines(text: str) -> list[str]:
    """Comment and blank lines dropped (inside a continuation too, as Docker does), backslash
    continuations joined with one space; a heredoc, which the classic builder cannot build, is
    refused."""
    lines: list[str] = []
    current = ""
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if raw.endswith("\\"):
            current += raw[:-1].strip() + " "
            continue
        current += raw.strip()
        assert not re.search(r"<<-?['\"]?\w+", current), f"a heredoc, which needs BuildKit: {current}"
        lines.append(current)
        current = ""
    return lines


def dockerfile(
    path: Path = DOCKERFILE, build_args: dict[str, str] | None = None
) -> tuple[dict[str, str], dict[str, Stage]]:
    """A Dockerfile's (this repository's unless told) global ARG defaults, and its stages by name
    as a build with `build_args` (--build-arg) makes them: their bases and their own ARGs."""
    given = build_args or {}
    defaults: dict[str, str] = {}
    stages: dict[str, Stage] = {}
    stage: Stage | None = None
    for line in _logical_lines(path.read_text()):
        instruction, _, arguments = line.strip().partition(" ")
        instruction, arguments = instruction.upper(), arguments.strip()
        if instruction == "FROM":
            image, _, name = arguments.partition(" AS ")
            base = interpolate(image.strip(), {**defaults, **given})
            stage = Stage(name.strip(), base)
            stages[stage.name] = stage
        elif instruction == "ARG":
            key, has_default, value = arguments.partition("=")
            if stage is None:
                defaults[key] = value
            else:
                # In a stage, a global ARG is in scope only when declared again.
                default = value if has_default else defaults.get(key, "")
                stage.args[key] = given.get(key, default)
                stage.instructions.append((instruction, arguments))
        elif stage is not None:
            stage.instructions.append((instruction, arguments))
    return defaults, stages


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


_SHELL_DEFAULT = re.compile(r"\$\{(\w+):-([^}]*)\}")


def tiercards_invocations(script: Path, environment: dict[str, str] | None = None) -> list[list[str]]:
    """Every `tiercards …` command line in a shell script, with each ${VAR:-default} at the
    environment's VAR (when set and not empty), else at its default."""

    def value(match: re.Match[str]) -> str:
        return (environment or {}).get(match[1]) or match[2]

    found = []
    for line in script.read_text().splitlines():
        words = shlex.split(_SHELL_DEFAULT.sub(value, line), comments=True)
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

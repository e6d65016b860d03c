"""`tiercards speech transcribe`: a flite recording transcribed in a speech process, primed with
the card's terms, as a table or as the API's fields; a refused file exits 1 with its sentence."""

import json
from pathlib import Path

import pytest

from app.settings import Settings
from app.speech.accuracy import word_error_rate
from app.speech.delivery import TARGET_WITHOUT_CARD_SECONDS
from tests.helpers.demos import demo_settings_for, tiercards
from tests.helpers.recordings import CARD
from tests.helpers.speech import DESIGN_FIELDS, wav_bytes
from tests.speech.clips import WER_BOUND, encode, speak

SENTENCE = "Prefetch goes last, so the producer overlaps the consumer and the accelerator never waits."


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return demo_settings_for(tmp_path_factory.mktemp("cli-data"))


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cli-clips")
    path = folder / "answer.ogg"
    path.write_bytes(encode(speak(SENTENCE, voice="rms", folder=folder), container="ogg"))
    return path


def test_json_has_the_api_fields_and_the_cards_terms(settings: Settings, recording: Path) -> None:
    done = tiercards(
        settings, "speech", "transcribe", str(recording), "--card", CARD, "--tier", "junior", "--json"
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert set(doc) >= DESIGN_FIELDS
    assert (doc["id"], doc["status"], doc["error"]) == (None, "done", None)
    assert word_error_rate(SENTENCE, doc["transcript"]) <= WER_BOUND, doc["transcript"]
    assert (
        doc["words"][0]["word"].lower() == "prefetch" and doc["words"][-1]["end"] <= doc["duration_s"] + 0.1
    )
    assert doc["target_seconds"] == 20  # junior: the basics answer
    assert "prefetch" in doc["terms_used"]


def test_the_table_shows_the_transcript_and_how_it_was_said(settings: Settings, recording: Path) -> None:
    done = tiercards(settings, "speech", "transcribe", str(recording))
    assert done.returncode == 0, done.stderr
    transcript, _, table = done.stdout.partition("\n\n")
    assert word_error_rate(SENTENCE, transcript) <= WER_BOUND
    rows = {line.split("  ")[0]: line for line in table.splitlines()}
    assert {"duration", "pace", "pauses over 2 s", "fillers", "most used", "terms used"} <= set(rows)
    # Without --card, the target an answer whose card is gone gets on a worker.
    assert f"(target ~{TARGET_WITHOUT_CARD_SECONDS} s)" in rows["duration"]


def test_a_refused_file_exits_1_with_its_sentence(settings: Settings, tmp_path: Path) -> None:
    fake = tmp_path / "answer.webm"
    fake.write_bytes(b"%PDF-1.7\n" + b"0" * 4000)
    done = tiercards(settings, "speech", "transcribe", str(fake), "--json")
    assert done.returncode == 1 and done.stdout == ""
    assert "could not be read as audio" in done.stderr


def test_a_long_plain_wav_is_judged_by_its_length_not_its_bytes(settings: Settings, tmp_path: Path) -> None:
    # 85 s of 16-bit 22 kHz WAV: 3.7 MB, more than 16 kB a second would allow.
    long = tmp_path / "long.wav"
    long.write_bytes(wav_bytes(seconds=85, rate=22_050))
    done = tiercards(settings, "speech", "transcribe", str(long), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["duration_s"] == pytest.approx(85, abs=0.1)
    too_long = tmp_path / "too-long.wav"
    too_long.write_bytes(wav_bytes(seconds=settings.max_recording_seconds + 5, rate=8_000))
    refused = tiercards(settings, "speech", "transcribe", str(too_long), "--json")
    assert refused.returncode == 1 and f"longer than {settings.max_recording_seconds} s" in refused.stderr


def test_an_unknown_card_is_refused(settings: Settings, recording: Path) -> None:
    done = tiercards(settings, "speech", "transcribe", str(recording), "--card", "no-such-card")
    assert done.returncode == 2 and "no-such-card" in done.stderr

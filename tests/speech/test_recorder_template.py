"""The Answer-aloud recorder as a form holds it: the hooks recorder.js and the recording routes
share, and the privacy text beside the button, which follows KEEP_RECORDINGS and its retention."""

from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup, Tag

from app.speech import filters as speech_filters
from app.web.templating import templates
from tests.factories import DECK, OWNER_CARD
from tests.helpers.html import one, text_of

pytestmark = pytest.mark.engine_agnostic


def _recorder(
    *, keep: bool = False, days: int = 7, kind: str = "basics", follow_up: int | None = None
) -> Tag:
    settings = SimpleNamespace(keep_recordings=keep, recording_retention_days=days, max_recording_seconds=180)
    request = SimpleNamespace(app=SimpleNamespace(state=SimpleNamespace(settings=settings)))
    speech_filters.register(templates.env)
    html = templates.env.get_template("_recorder.html").render(
        request=request,
        card=DECK[OWNER_CARD],
        tier="middle",
        recorder_kind=kind,
        recorder_follow_up=follow_up,
    )
    return one(BeautifulSoup(html, "html.parser"), "[data-recorder]")


def _said(tag: Tag) -> str:
    return " ".join(text_of(tag, "[data-recorder-privacy]").split())


def test_the_recorder_sends_to_its_card_and_brings_the_recording_back_into_its_form() -> None:
    recorder = _recorder(kind="follow-up", follow_up=2)
    assert recorder["data-action"] == f"/cards/{OWNER_CARD}/recordings"
    assert (recorder["data-tier"], recorder["data-kind"], recorder["data-follow-up"]) == (
        "middle",
        "follow-up",
        "2",
    )
    assert recorder["data-max-seconds"] == "180"
    field = one(recorder, "input[name=recording_id]")
    assert (field["type"], field["value"]) == ("hidden", "")
    assert one(recorder, "[data-recording-slot]").get_text(strip=True) == ""
    buttons = [" ".join(button.get_text().split()) for button in recorder.find_all("button")]
    assert buttons == ["Answer aloud", "Stop", "Send", "Redo"]
    assert all(button["type"] == "button" for button in recorder.find_all("button"))  # none submits the form
    assert one(recorder, "[role=status]")["aria-live"] == "polite"
    assert "data-follow-up" not in _recorder().attrs


def test_the_privacy_text_says_the_audio_is_deleted_once_transcribed() -> None:
    said = _said(_recorder())
    assert "Nothing leaves your browser until you press Send" in said
    assert "stops by itself at 3:00" in said
    assert "deletes it as soon as it is transcribed" in said
    assert "Leads never get your audio" in said
    assert "keeps it" not in said


def test_with_recordings_kept_the_privacy_text_says_for_how_long_and_for_whom() -> None:
    said = _said(_recorder(keep=True, days=3))
    assert "keeps it for 3 days, playable only by you, then deletes it" in said
    assert "as soon as it is transcribed" not in said
    assert "keeps it for 1 day," in _said(_recorder(keep=True, days=1))

"""Answering aloud in chromium, with its fake microphone playing a WAV of flite reading a sentence
of the owner's card, on the whole site with its worker transcribing: record, stop, send, the
transcript arrives in the answer box, is edited and saved, rated, and history shows its pace. Also
the sentence a browser with no microphone gets (typing stays), the flow from the keyboard alone,
and axe on each state of the recorder."""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, Playwright, Route, ViewportSize, expect

from app import PROJECT_ROOT
from app.content.parser import parse_card
from app.speech.accuracy import word_error_rate
from app.speech.delivery import SOUND_FILLERS
from tests.factories import OWNER_CARD
from tests.helpers.browser import (
    BLOCKING,
    Site,
    axe_violations,
    described,
    fake_microphone_args,
    launch_chromium,
    open_page,
    save_screenshot,
)
from tests.speech.clips import joined, sentences, speak, wav_seconds

# Measured through chromium's fake microphone (it resamples the WAV to 48 kHz, the page encodes
# Opus at 32 kbit/s): 0.095 on this 21-word sentence in each of four runs ("a buffer" heard as
# "above or"); the bound leaves room for one word more.
WER_BOUND = 0.15
# Time the worker may take: the model loads with the first recording.
TRANSCRIBED_WITHIN_MS = 120_000
CARD_PAGE = f"/cards/{OWNER_CARD}?tier=middle"


@pytest.fixture(scope="module")
def sentence() -> str:
    card = parse_card(PROJECT_ROOT / "content" / f"{OWNER_CARD}.md")
    return sentences(card)[0]


@pytest.fixture(scope="module")
def clip(sentence: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return speak(sentence, voice="rms", folder=tmp_path_factory.mktemp("clips"))


@pytest.fixture(scope="module")
def microphone(playwright: Playwright, clip: Path) -> Iterator[Browser]:
    """Chromium whose microphone plays the clip once, from when a page starts recording."""
    browser = launch_chromium(playwright, *fake_microphone_args(clip))
    yield browser
    browser.close()


def panel(page: Page) -> Locator:
    """The card page's timed answer (each follow-up has a recorder of its own)."""
    return page.locator("#answer-panel")


def recorder(page: Page) -> Locator:
    return panel(page).locator("[data-recorder]")


def speak_the_clip(page: Page, clip: Path) -> None:
    """Wait while the microphone plays the clip, and a little silence after it."""
    page.wait_for_timeout(int(wav_seconds(clip) * 1000) + 1200)


def transcript_arrives(page: Page) -> str:
    box = page.locator("#answer-text")
    expect(box).not_to_have_value("", timeout=TRANSCRIBED_WITHIN_MS)
    expect(box).to_be_focused()
    return box.input_value()


def newest_attempt(site: Site) -> dict[str, Any]:
    with httpx.Client(base_url=site.url, cookies=site.cookies["ada"]) as client:
        attempts: list[dict[str, Any]] = client.get("/api/attempts", params={"card_id": OWNER_CARD}).json()
    return attempts[0]


def test_an_answer_said_aloud_is_transcribed_edited_saved_and_shown_with_its_pace(
    microphone: Browser, site: Site, clip: Path, sentence: str, viewport: ViewportSize, screenshot_dir: Path
) -> None:
    width = viewport["width"]
    with open_page(microphone, viewport, site.cookies["ada"], site.url) as page:
        page.goto(site.url + CARD_PAGE)
        expect(recorder(page)).to_be_visible()
        expect(recorder(page).locator("[data-recorder-privacy]")).to_contain_text(
            "Nothing leaves your browser"
        )
        save_screenshot(page, screenshot_dir, f"answer-aloud-ready-{width}")
        timer = page.locator("#answer-panel [data-answer-timer]")
        before = timer.inner_text()

        panel(page).get_by_role("button", name="Answer aloud").click()
        expect(panel(page).get_by_role("button", name="Stop")).to_be_focused()
        # The meter's words are read every 2 s, which may fall on a quiet syllable: not "none".
        expect(recorder(page).locator("[data-level-text]")).to_have_text(re.compile("sound: (quiet|good)"))
        expect(timer).not_to_have_text(before)  # the answer clock runs while recording
        save_screenshot(page, screenshot_dir, f"answer-aloud-recording-{width}")
        speak_the_clip(page, clip)
        panel(page).get_by_role("button", name="Stop").click()
        stopped = timer.inner_text()
        page.wait_for_timeout(1500)
        expect(timer).to_have_text(stopped)  # and pauses when it stops
        status = recorder(page).get_by_role("status")
        expect(status).to_contain_text("Recorded ")
        length = re.match(r"Recorded (.+?)\. ", status.inner_text())
        assert length is not None, status.inner_text()
        panel(page).get_by_role("button", name="Send").click()

        heard = transcript_arrives(page)
        assert word_error_rate(sentence, heard) <= WER_BOUND, heard
        done = panel(page).locator("[data-recording-slot] [data-recording]")
        expect(done).to_have_attribute("data-status", "done")
        expect(recorder(page).locator("[data-recorder-status]")).to_have_text(
            "Transcript ready: check it, then submit"
        )
        expect(done).to_contain_text(re.compile(r"130\s*[\u2013-]\s*175"))  # the usual pace, marked
        # The recorded length reads as the recorder said it when it stopped: the same rounding and
        # form; the browser's clock and the decoded audio may differ by a few hundredths.
        shown = done.locator(".delivery-duration dd").inner_text()
        assert abs(int(shown.split(" s ")[0]) - int(length.group(1).removesuffix(" s"))) <= 1, (shown, length)
        save_screenshot(page, screenshot_dir, f"answer-aloud-transcript-{width}")
        recording_id = panel(page).locator("input[name=recording_id]").input_value()
        assert recording_id == done.get_attribute("data-recording")
        duration = float(done.get_attribute("data-duration") or "nan")

        edited = heard.replace(heard.split()[0], "Prefetching", 1)
        page.fill("#answer-text", edited)
        page.get_by_role("button", name="Submit answer").click()
        expect(page.locator("#answer-panel .your-answer")).to_have_text(edited)
        # How it was said stays beside the suggestion.
        expect(page.locator("#answer-panel .delivery .delivery-pace")).to_contain_text("words a minute")
        page.locator("#answer-panel .checklist input[type=checkbox]").first.check()
        page.locator("#answer-panel .rating button[value=good]").click()
        expect(page.locator("#answer-panel .saved")).to_be_visible()

        attempt = newest_attempt(site)
        assert attempt["text"] == edited
        assert attempt["seconds"] == pytest.approx(duration, abs=0.1)  # the recording's, not the clock's
        page.goto(f"{site.url}/cards/{OWNER_CARD}/history")
        expect(page.locator("main")).to_contain_text(re.compile(r"said aloud.*\d+ wpm"))


@pytest.mark.parametrize(
    ("browser_lacks", "sentence"),
    [
        ("delete window.MediaRecorder", "This browser gives the page no microphone, so answer by typing."),
        (
            "MediaRecorder.isTypeSupported = () => false",
            "This browser cannot record in a format this server reads (Opus or AAC), so answer by typing.",
        ),
    ],
    ids=["no-recorder", "no-format"],
)
def test_a_browser_without_a_microphone_says_so_and_typing_stays(
    browser: Browser, site: Site, browser_lacks: str, sentence: str
) -> None:
    laptop: ViewportSize = {"width": 1280, "height": 800}
    with open_page(browser, laptop, site.cookies["ada"], site.url) as page:
        page.add_init_script(browser_lacks)
        page.goto(site.url + CARD_PAGE)
        expect(recorder(page).get_by_role("status")).to_have_text(sentence)
        expect(panel(page).get_by_role("button", name="Answer aloud")).to_be_hidden()
        page.fill(
            "#answer-text", "Prefetch overlaps the input work of the next step with this step's compute."
        )
        page.get_by_role("button", name="Submit answer").click()
        expect(page.locator("#answer-panel .model-answer")).to_be_visible()


def test_a_refused_microphone_says_so_and_typing_stays(browser: Browser, site: Site) -> None:
    """Chromium without the fake device flags has no microphone to give and grants none."""
    laptop: ViewportSize = {"width": 1280, "height": 800}
    with open_page(browser, laptop, site.cookies["ada"], site.url) as page:
        page.goto(site.url + CARD_PAGE)
        panel(page).get_by_role("button", name="Answer aloud").click()
        expect(recorder(page).get_by_role("status")).to_have_text(
            re.compile(r"^(The microphone is blocked|No microphone was found).*so answer by typing")
        )
        expect(page.locator("#answer-text")).to_be_editable()
        expect(panel(page).get_by_role("button", name="Stop")).to_be_hidden()


def test_answering_aloud_from_the_keyboard_alone(microphone: Browser, site: Site, clip: Path) -> None:
    laptop: ViewportSize = {"width": 1280, "height": 800}
    with open_page(microphone, laptop, site.cookies["ada"], site.url) as page:
        page.goto(site.url + CARD_PAGE)
        page.locator("#answer-text").focus()
        page.keyboard.press("Tab")
        expect(panel(page).get_by_role("button", name="Answer aloud")).to_be_focused()
        page.keyboard.press("Enter")
        expect(panel(page).get_by_role("button", name="Stop")).to_be_focused()
        speak_the_clip(page, clip)
        page.keyboard.press("Enter")
        expect(panel(page).get_by_role("button", name="Send")).to_be_focused()
        page.keyboard.press("Enter")
        transcript_arrives(page)
        page.keyboard.type(" And it goes last.")
        for _ in range(6):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.textContent.trim()") == "Submit answer":
                break
        expect(page.get_by_role("button", name="Submit answer")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator("#answer-panel .your-answer")).to_contain_text("And it goes last.")


def test_every_state_of_the_recorder_passes_axe_and_a_silent_microphone_is_told(
    microphone: Browser, site: Site, clip: Path
) -> None:
    phone: ViewportSize = {"width": 390, "height": 844}
    found: dict[str, list[dict[str, Any]]] = {}
    with open_page(microphone, phone, site.cookies["ada"], site.url) as page:
        page.goto(site.url + CARD_PAGE)
        expect(recorder(page)).to_be_visible()
        found["ready"] = axe_violations(page)
        panel(page).get_by_role("button", name="Answer aloud").click()
        expect(recorder(page).locator("[data-recorder-level]")).to_be_visible()
        found["recording"] = axe_violations(page)
        speak_the_clip(page, clip)
        # The clip has ended: the microphone gives silence, and the recorder says so.
        expect(recorder(page).get_by_role("status")).to_have_text(
            "No sound from the microphone for 2 seconds: check that it is on and not muted."
        )
        expect(recorder(page).locator("[data-level-text]")).to_have_text("sound: none")
        found["silent"] = axe_violations(page)
        panel(page).get_by_role("button", name="Stop").click()
        found["stopped"] = axe_violations(page)
        panel(page).get_by_role("button", name="Send").click()
        transcript_arrives(page)
        found["transcribed"] = axe_violations(page)
    blocking = {state: [v for v in found[state] if v["impact"] in BLOCKING] for state in found}
    assert all(not v for v in blocking.values()), {s: described(v) for s, v in blocking.items() if v}


def _rated_if_waiting(page: Page, site: Site) -> None:
    """An answer typed on /practice and left unrated comes back there to be rated, as a person's
    would; other tests on this shared site leave one as ada. Rated, it makes way for a new card."""
    card = page.locator("#practice-card")
    if card.locator(".model-answer").count():
        card.locator("form.practice-rate button[name=rating][value=good]").click()
        expect(card.locator(".flash")).to_be_visible()
        page.goto(f"{site.url}/practice")


def test_a_follow_up_and_practice_each_take_the_transcript_into_their_own_box(
    microphone: Browser, site: Site, clip: Path
) -> None:
    laptop: ViewportSize = {"width": 1280, "height": 800}
    with open_page(microphone, laptop, site.cookies["ada"], site.url) as page:
        page.goto(site.url + CARD_PAGE)
        follow_up = page.locator("#follow-up-0")
        follow_up.get_by_role("button", name="Answer aloud").click()
        speak_the_clip(page, clip)
        follow_up.get_by_role("button", name="Stop").click()
        follow_up.get_by_role("button", name="Send").click()
        box = follow_up.locator("textarea[name=text]")
        expect(box).not_to_have_value("", timeout=TRANSCRIBED_WITHIN_MS)
        expect(box).to_be_focused()
        expect(page.locator("#answer-text")).to_have_value("")  # the timed answer is untouched
        assert follow_up.locator("input[name=recording_id]").input_value() != ""

    with open_page(microphone, laptop, site.cookies["ada"], site.url) as page:
        page.goto(f"{site.url}/practice")
        _rated_if_waiting(page, site)
        card = page.locator("#practice-card")
        card.get_by_role("button", name="Answer aloud").click()
        speak_the_clip(page, clip)
        card.get_by_role("button", name="Stop").click()
        card.get_by_role("button", name="Send").click()
        box = card.locator("#practice-text")
        expect(box).not_to_have_value("", timeout=TRANSCRIBED_WITHIN_MS)
        heard = box.input_value()
        card.locator("[data-shortcut=reveal]").click()
        expect(page.locator("#practice-card .your-answer")).to_have_text(heard)


def test_recording_stops_by_itself_at_the_limit(microphone: Browser, site: Site) -> None:
    laptop: ViewportSize = {"width": 1280, "height": 800}
    with open_page(microphone, laptop, site.cookies["ada"], site.url) as page:
        page.goto(site.url + CARD_PAGE)
        # The limit the template prints (MAX_RECORDING_SECONDS, 180) shortened, to wait less.
        recorder(page).evaluate("el => { el.dataset.maxSeconds = '2'; }")
        panel(page).get_by_role("button", name="Answer aloud").click()
        expect(panel(page).get_by_role("button", name="Send")).to_be_focused()
        expect(recorder(page).get_by_role("status")).to_have_text(
            "Stopped at the 0:02 limit. Send it to be transcribed, or Redo."
        )
        expect(panel(page).get_by_role("button", name="Stop")).to_be_hidden()
        panel(page).get_by_role("button", name="Redo").click()
        expect(panel(page).get_by_role("button", name="Answer aloud")).to_be_focused()
        expect(recorder(page).locator("[data-recording-slot]")).to_be_empty()  # nothing was sent


def test_a_send_that_cannot_reach_the_server_keeps_the_recording_for_another_try(
    microphone: Browser, site: Site, clip: Path
) -> None:
    laptop: ViewportSize = {"width": 1280, "height": 800}
    cut_off = "net::ERR_INTERNET_DISCONNECTED"
    with open_page(microphone, laptop, site.cookies["ada"], site.url, expected_error=cut_off) as page:
        page.goto(site.url + CARD_PAGE)
        panel(page).get_by_role("button", name="Answer aloud").click()
        speak_the_clip(page, clip)
        panel(page).get_by_role("button", name="Stop").click()
        uploads = f"**/cards/{OWNER_CARD}/recordings"
        page.route(uploads, lambda route: route.abort("internetdisconnected"))
        panel(page).get_by_role("button", name="Send").click()
        expect(recorder(page).get_by_role("status")).to_have_text(
            "Could not reach the server. Your recording is kept: press Send to try again."
        )
        expect(panel(page).get_by_role("button", name="Send")).to_be_focused()
        page.unroute(uploads)
        panel(page).get_by_role("button", name="Send").click()
        transcript_arrives(page)


@contextmanager
def on_the_card(
    browser: Browser, site: Site, script: str = "", expected_error: str | None = None
) -> Iterator[Page]:
    """ada's card page on a laptop, with `script` run before the page's own."""
    laptop: ViewportSize = {"width": 1280, "height": 800}
    with open_page(browser, laptop, site.cookies["ada"], site.url, expected_error=expected_error) as page:
        if script:
            page.add_init_script(script)
        page.goto(site.url + CARD_PAGE)
        yield page


def record_and_send(page: Page, clip: Path) -> None:
    """A take of the clip on the card page's timed answer, sent to be transcribed."""
    panel(page).get_by_role("button", name=re.compile("^(Answer aloud|Record again)$")).click()
    speak_the_clip(page, clip)
    panel(page).get_by_role("button", name="Stop").click()
    panel(page).get_by_role("button", name="Send").click()


def test_a_recording_stopped_at_the_limit_sends_no_more_seconds_than_the_limit(
    microphone: Browser, site: Site
) -> None:
    sent: list[bytes] = []
    with on_the_card(microphone, site, expected_error="net::ERR_INTERNET_DISCONNECTED") as page:
        recorder(page).evaluate("el => { el.dataset.maxSeconds = '2'; }")
        panel(page).get_by_role("button", name="Answer aloud").click()
        expect(panel(page).get_by_role("button", name="Stop")).to_be_focused()
        # A busy page: the limit's timer fires late, as on a slow phone.
        page.evaluate("() => { const end = performance.now() + 3000; while (performance.now() < end) {} }")
        expect(panel(page).get_by_role("button", name="Send")).to_be_focused()

        def keep(route: Route) -> None:
            sent.append(route.request.post_data_buffer or b"")
            route.abort("internetdisconnected")

        page.route(f"**/cards/{OWNER_CARD}/recordings", keep)
        panel(page).get_by_role("button", name="Send").click()
        expect(recorder(page).get_by_role("status")).to_contain_text("Could not reach the server")
    seconds = re.search(rb'name="seconds"\r\n\r\n([0-9.]+)\r\n', sent[0])
    assert seconds is not None
    assert float(seconds.group(1)) <= 2


def test_the_recording_id_goes_with_a_new_take_and_with_an_emptied_box_but_not_with_edits(
    microphone: Browser, site: Site, clip: Path
) -> None:
    with on_the_card(microphone, site) as page:
        recording_id = panel(page).locator("input[name=recording_id]")
        record_and_send(page, clip)
        transcript_arrives(page)
        expect(recording_id).not_to_have_value("")
        page.keyboard.type(" And it goes last.")
        expect(recording_id).not_to_have_value("")  # the text is the edited transcript

        panel(page).get_by_role("button", name="Record again").click()
        expect(panel(page).get_by_role("button", name="Stop")).to_be_focused()
        expect(recording_id).to_have_value("")  # a new take is not the transcribed one
        speak_the_clip(page, clip)
        panel(page).get_by_role("button", name="Stop").click()
        # This take is refused (the server is told it lasted 0 s): no recording goes with the box.
        page.route(f"**/cards/{OWNER_CARD}/recordings", said_to_last_no_time)
        panel(page).get_by_role("button", name="Send").click()
        expect(recorder(page).get_by_role("alert")).to_be_visible()
        expect(recording_id).to_have_value("")
        page.unroute(f"**/cards/{OWNER_CARD}/recordings")

        panel(page).get_by_role("button", name="Send").click()
        expect(panel(page).locator("[data-recording-slot] [data-recording]")).to_have_attribute(
            "data-status", "done", timeout=TRANSCRIBED_WITHIN_MS
        )
        expect(recording_id).not_to_have_value("")
        page.fill("#answer-text", "")
        expect(recording_id).to_have_value("")  # an emptied box is no longer the transcript


def said_to_last_no_time(route: Route) -> None:
    body = re.sub(rb'(name="seconds"\r\n\r\n)[0-9.]+', rb"\g<1>0", route.request.post_data_buffer or b"")
    route.continue_(post_data=body)


def test_a_transcript_outlives_a_reload_with_its_recording(
    microphone: Browser, site: Site, clip: Path
) -> None:
    with on_the_card(microphone, site) as page:
        record_and_send(page, clip)
        heard = transcript_arrives(page)
        recording_id = panel(page).locator("input[name=recording_id]").input_value()
        page.reload()
        expect(page.locator("#answer-text")).to_have_value(heard)
        expect(panel(page).locator("input[name=recording_id]")).to_have_value(recording_id)
        page.get_by_role("button", name="Submit answer").click()
        expect(page.locator("#answer-panel .your-answer")).to_have_text(heard)
        assert newest_attempt(site)["recording_id"] == recording_id


def test_a_browser_that_records_only_aac_in_mp4_records_that(microphone: Browser, site: Site) -> None:
    """Safari's one format: the recorder asks for it rather than refusing."""
    with on_the_card(
        microphone,
        site,
        """
        const Real = MediaRecorder;
        window.MediaRecorder = function (stream, options) {
          window.askedFor = options.mimeType;
          return new Real(stream, {});
        };
        window.MediaRecorder.isTypeSupported = (type) => type.startsWith("audio/mp4");
        """,
    ) as page:
        panel(page).get_by_role("button", name="Answer aloud").click()
        expect(panel(page).get_by_role("button", name="Stop")).to_be_focused()
        assert page.evaluate("window.askedFor") == "audio/mp4"


def test_an_um_and_a_long_pause_said_aloud_both_show_beside_the_transcript(
    playwright: Playwright, site: Site, sentence: str, tmp_path: Path
) -> None:
    """A take that hesitates: an "um" set off by short silences, and a 2.5 s silence later on."""
    words = sentence.split()
    third = len(words) // 3
    parts = [" ".join(words[:third]), " ".join(words[third : 2 * third]), " ".join(words[2 * third :])]
    clip, _ = joined(
        [
            0.3,
            speak(parts[0], voice="rms", folder=tmp_path),
            0.4,
            speak("um", voice="rms", folder=tmp_path),
            0.4,
            speak(parts[1], voice="rms", folder=tmp_path),
            2.5,
            speak(parts[2], voice="rms", folder=tmp_path),
            0.5,
        ],
        folder=tmp_path,
    )
    browser = launch_chromium(playwright, *fake_microphone_args(clip))
    try:
        with on_the_card(browser, site) as page:
            record_and_send(page, clip)
            transcript_arrives(page)
            shown = panel(page).locator("[data-recording-slot] .delivery")
            fillers = shown.locator(".delivery-fillers dd").inner_text()
            assert re.search(rf"\b({'|'.join(SOUND_FILLERS)}) \u00d71\b", fillers), fillers
            expect(shown.locator(".delivery-pauses li")).to_have_count(1)
            expect(shown.locator(".delivery-pauses li")).to_contain_text(re.compile(r"^2\.\d+ s after"))
    finally:
        browser.close()

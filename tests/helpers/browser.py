"""Headless Debian chromium and the whole site as a team sees it (accounts mode, a worker, a
finished demo run, people with answers), with `SITE_PAGES` listing every page of it, for the tests
that look at every page at phone and desktop widths."""

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright, ViewportSize, expect

from app import PROJECT_ROOT
from app.content.cards import item_key
from tests.factories import DECK, OWNER_CARD
from tests.helpers.accounts import sign_in
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import demo_run_payload
from tests.helpers.practice import post_attempt
from tests.servers import data_env, start_server, stop
from tests.speech.clips import speak, wav_seconds

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# This machine has no outside network: keep chromium from trying to reach Google's services.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Chromium's microphone, fed from a WAV: granted without asking, played once (`%noloop`; it
# loops the file otherwise), then silence.
def fake_microphone_args(wav: Path) -> list[str]:
    return [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}%noloop",
    ]


def launch_chromium(playwright: Playwright, *extra: str) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra])


# The owner's card's note on its "strictly serial" claim, which the placement demo measures.
# What ada says aloud on the site: a sentence of the owner's card's solid answer.
SAID_ALOUD = (
    "Put prefetch last, after batch, so the next batch is prepared while the model trains on this one."
)
SERIAL_NOTE = item_key("Without `prefetch`, a training step is strictly serial")
# A phone (an iPhone 12 to 15's CSS pixels), a small Android phone, and a laptop.
VIEWPORT_HEIGHTS = {360: 780, 390: 844, 1280: 800}
# The widest screen that gets the phone layout (static/css/app.css, static/js/review.js).
PHONE_WIDTH = 600


@contextmanager
def open_page(
    browser: Browser,
    viewport: ViewportSize,
    cookies: dict[str, str] | None = None,
    url: str = "",
    expected_status: int = 200,
    has_touch: bool = False,
    expected_error: str | None = None,
) -> Iterator[Page]:
    """A page in a context of its own (with `cookies` for the site at `url`) that fails the test
    on any script error or failed request, but a 422 (the app refusing bad input in place, which
    the page shows), the status the test asked for on purpose, or the `expected_error` it causes
    (a request it cuts off)."""
    context = browser.new_context(viewport=viewport, has_touch=has_touch)
    if cookies:
        context.add_cookies([{"name": name, "value": value, "url": url} for name, value in cookies.items()])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        yield page
    finally:
        context.close()
    allowed = {"status of 422"} | ({f"status of {expected_status}"} if expected_status != 200 else set())
    allowed |= {expected_error} if expected_error else set()
    unexpected = [e for e in errors if not any(a in e for a in allowed)]
    assert unexpected == [], f"the page reported errors: {unexpected}"


# The images docs/practising.md shows, taken from the same pages: `UPDATE_DOCS_SCREENSHOTS=1` writes them
# too.
DOCS_SCREENSHOTS = {"card-answered-1280": "card-answered.png", "demo-result-1280": "demo-result.png"}


AXE = Path(__file__).parents[1] / "browser" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = ("serious", "critical")


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """What axe-core finds against WCAG 2.2 AA on the page as it is now."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: run scripts/install-npm-packages.sh")
    # Evaluated through the browser's debugging protocol, which the page's CSP does not govern.
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_22_AA,
    )
    return list(result["violations"])


def described(violations: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{v['impact']} {v['id']} ({v['help']}): "
        + "; ".join(
            " ".join(node["target"]) + f" [{node.get('failureSummary', '').strip()}]"
            for node in v["nodes"][:6]
        )
        for v in violations
    )


def signed_in_page(context: BrowserContext, url: str, name: str, password: str, errors: list[str]) -> Page:
    """A page of `context` signed in through /login as `name`; what its scripts report goes to
    `errors` (a CSP violation shows there)."""
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(f"{name}: {error}"))
    page.on("console", lambda m: errors.append(f"{name}: {m.text}") if m.type == "error" else None)
    page.goto(f"{url}/login")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    expect(page).not_to_have_url(f"{url}/login")
    return page


def save_screenshot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    if name in DOCS_SCREENSHOTS and os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1":
        page.screenshot(
            path=str(PROJECT_ROOT / "docs" / "screenshots" / DOCS_SCREENSHOTS[name]), full_page=True
        )


# ---- the whole site, as a team sees it -------------------------------------------------------

PEOPLE = {"ada": ("admin", "ada pass phrase 111"), "max": ("member", "max pass phrase 222")}
ACCOUNTS = {"AUTH_MODE": "accounts"}


@dataclass(frozen=True)
class Site:
    url: str
    # What fills each path parameter of the page routes.
    params: dict[str, str]
    # Each person's signed-in cookies, by name.
    cookies: dict[str, dict[str, str]]


def _tiercards(env: dict[str, str], *args: str, stdin: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        input=stdin,
        text=True,
        cwd=PROJECT_ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return done.stdout.strip()


def add_people(env: dict[str, str], people: dict[str, tuple[str, str]]) -> None:
    """Each person (name: role, password) added with `tiercards users add`, as an operator does."""
    for name, (role, password) in people.items():
        _tiercards(env, "users", "add", name, "--role", role, "--password-stdin", stdin=f"{password}\n")


def _signed_in(url: str, name: str) -> httpx.Client:
    return sign_in(csrf_client(url, page="/login"), name, PEOPLE[name][1])


def _attempt(client: httpx.Client, **fields: object) -> str:
    """An answer stored; its id."""
    return str(post_attempt(client, OWNER_CARD, text="prefetch overlaps input with compute", **fields)["id"])


def _assigned_interview(lead: httpx.Client, member: httpx.Client, due: str) -> str:
    """A mock interview the lead assigns the member, who starts it from its box on /interview and
    answers its first question; the session's id."""
    token = {"csrf_token": lead.headers["X-CSRF-Token"]}
    assigned = lead.post(
        "/team/assignments",
        data=token
        | {"card_ids": OWNER_CARD, "tier": "middle", "member": "max", "due": due, "kind": "interview"},
    )
    assert assigned.status_code == 303, assigned.text
    box = re.search(r'name="assignment" value="(\d+)"', member.get("/interview").text)
    assert box is not None, "the assigned interview's box is missing"
    form = {"csrf_token": member.headers["X-CSRF-Token"], "source": "cards", "card": OWNER_CARD}
    started = member.post("/interview", data=form | {"tier": "middle", "assignment": box.group(1)})
    assert started.status_code == 303, started.text
    session = started.headers["location"].rsplit("/", 1)[-1]
    answer = {"csrf_token": member.headers["X-CSRF-Token"], "position": "0", "seconds": "35"}
    answered = member.post(f"/interview/{session}/answer", data=answer | {"text": "Prefetch overlaps input."})
    assert answered.status_code == 200, answered.text
    return session


def _suggested_edit(member: httpx.Client) -> str:
    """An edit the member suggests to the owner's card (waiting for review: no file changes)."""
    text = (PROJECT_ROOT / "content" / f"{OWNER_CARD}.md").read_text(encoding="utf-8")
    changed = text.replace(
        "3. the buffer holds batches when it is last", "3. placed last, the buffer holds whole batches"
    )
    made = member.post(
        f"/api/cards/{OWNER_CARD}/proposals", json={"markdown": changed, "reason": "say whole batches"}
    )
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def _wait_done(client: httpx.Client, path: str, *, within_s: float) -> None:
    """Until the job `path` reads is done, on the site's worker; failed or too slow fails the test."""
    deadline = time.monotonic() + within_s
    while (status := client.get(path).json()["status"]) != "done":
        assert status in ("queued", "running") and time.monotonic() < deadline, f"{path} is {status}"
        time.sleep(0.5)


def _finished_demo(client: httpx.Client) -> str:
    params = {"steps": 8, "input_ms": 10, "compute_ms": 10, "batch_size": 2}
    accepted = client.post("/api/demos", json=demo_run_payload(card_id=OWNER_CARD, params=params))
    assert accepted.status_code == 202, accepted.text
    run_id = str(accepted.json()["run_id"])
    _wait_done(client, f"/api/demos/{run_id}", within_s=120)
    return run_id


def _transcribed_recording(client: httpx.Client, folder: Path) -> str:
    """A solid answer said aloud (flite reads a sentence of the owner's card), sent through the
    API and waited for until the site's worker has transcribed it."""
    clip = speak(SAID_ALOUD, voice="slt", folder=folder)
    accepted = client.post(
        f"/api/cards/{OWNER_CARD}/recordings",
        data={"tier": "middle", "kind": "solid", "seconds": str(wav_seconds(clip))},
        files={"audio": ("answer.wav", clip.read_bytes(), "audio/wav")},
    )
    assert accepted.status_code == 202, accepted.text
    recording_id = str(accepted.json()["id"])
    _wait_done(client, f"/api/recordings/{recording_id}", within_s=180)
    return recording_id


@contextmanager
def running_site(data_dir: Path) -> Iterator[Site]:
    """`tiercards serve` in accounts mode WITH its worker: ada (an admin) and max (a member) have
    answered, ada has a finished demo run and assigned max a card and a mock interview (which max
    has begun), and an invite is open."""
    env = {**os.environ, **data_env(data_dir), **ACCOUNTS}
    add_people(env, PEOPLE)
    invite = _tiercards(env, "users", "invite", "--role", "member").rsplit("/", 1)[-1]
    process, url = start_server(data_dir, env=ACCOUNTS)
    try:
        ada, max_ = _signed_in(url, "ada"), _signed_in(url, "max")
        attempt_id = _attempt(ada)
        _attempt(ada, kind="basics", tier="junior", seconds=31.0, rating="hard", points=[0])
        _attempt(max_)
        run_id = _finished_demo(ada)
        recording_id = _transcribed_recording(ada, data_dir)
        due = (date.today() + timedelta(days=7)).isoformat()
        assigned = ada.post(
            "/team/assignments",
            data={"csrf_token": ada.headers["X-CSRF-Token"], "card_ids": OWNER_CARD, "tier": "middle"}
            | {"member": "max", "due": due},
        )
        assert assigned.status_code == 303, assigned.text
        interview = _assigned_interview(ada, max_, due)
        proposal = _suggested_edit(max_)
        cookies = {name: dict(client.cookies.items()) for name, client in (("ada", ada), ("max", max_))}
        params = {
            "card_id": OWNER_CARD,
            "run_id": run_id,
            "recording_id": recording_id,
            "attempt_id": attempt_id,
            "name": "max",
            "token": invite,
            "note_key": SERIAL_NOTE,
            "assigned_interview": interview,
            "proposal_id": proposal,
        }
        yield Site(url, params, cookies)
    finally:
        stop(process, timeout=30)


@dataclass(frozen=True)
class SitePage:
    """One page in one state: `route` is its path in the app's route table, `path` the address
    opened (route parameters filled from the site), `act` what a person does there first."""

    name: str
    route: str
    path: str = ""
    person: str | None = "ada"
    status: int = 200
    act: Callable[[Page], None] | None = None
    # The state worth a screenshot in the docs or for a look at both widths.
    screenshot: bool = False

    def url(self, site: Site) -> str:
        return site.url + (self.path or self.route).format(**site.params)


def is_pitfall(box: Locator, card_id: str = OWNER_CARD) -> bool:
    """Whether the quiz box labels one of the card's pitfalls, told by its words as a reader does
    (the form's values say nothing of it)."""
    words = " ".join(box.locator("xpath=..").inner_text().split())
    return words in {" ".join(entry.title.plain.split()) for entry in DECK[card_id].pitfalls}


def _answer(page: Page) -> None:
    page.fill("#answer-text", "Prefetch overlaps the input work of the next step with this step's compute.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#answer-panel .model-answer")).to_be_visible()


def _answer_and_rate(page: Page) -> None:
    _answer(page)
    # Scoped to the answer just given: an earlier one left unrated waits in the history too.
    page.locator("#answer-panel .checklist input[type=checkbox]").first.check()
    page.locator("#answer-panel .rating button[value=good]").click()
    expect(page.locator("#answer-panel .saved")).to_be_visible()


def _reveal(page: Page) -> None:
    page.get_by_role("button", name="Reveal without answering").click()
    expect(page.locator(".model-answer").first).to_be_visible()


def unfold_the_long_answer(page: Page) -> None:
    """On a phone the long answer comes in folded: open it, as a reader there does."""
    size = page.viewport_size
    if size is None or size["width"] > PHONE_WIDTH:
        return
    long_answer = page.locator(".model-answer details.long-answer").first
    expect(long_answer).not_to_have_attribute("open", "")  # folded once its swap has settled
    long_answer.locator("> summary").click()
    expect(long_answer.locator("> .prose")).to_be_visible()


def _open_a_note(page: Page) -> None:
    """Reveal the answer and open the note beside its first claim: its figures load."""
    _reveal(page)
    unfold_the_long_answer(page)
    note = page.locator("details.version-note").first
    note.locator("summary").click()
    expect(note.locator(".evidence .figure")).to_be_visible()


def _check_quiz(page: Page) -> None:
    page.get_by_role("button", name="Check my picks").click()
    expect(page.locator(".quiz .score")).to_be_visible()


def _select_a_bar(page: Page) -> None:
    page.locator("figure.timeline").first.locator("g.bars-compute rect").nth(3).click()
    expect(page.locator("figure.timeline [data-readout]").first).not_to_be_empty()


def _practice_reveal(page: Page) -> None:
    answer = page.locator("#practice-card .model-answer")
    # An answer another test typed and left unrated comes back revealed, to rate: already shown.
    if not answer.count():
        page.locator("[data-shortcut=reveal]").click()
    expect(answer).to_be_visible()


def _break_the_card(page: Page) -> None:
    page.fill("#card-source", "---\nid: half-written\nlevel: expert\n---\n\n## Answer\n")
    expect(page.locator(".author-problems li").first).to_be_visible()


def _start_interview(page: Page, tier: str = "middle") -> None:
    page.check('input[name="source"][value="random"]')
    page.select_option('select[name="tier"]', tier)
    page.fill('input[name="count"]', "1")
    page.get_by_role("button", name="Start the interview").click()
    expect(page.locator("#interview-step textarea")).to_be_visible()


def _interview_answered(page: Page) -> None:
    _start_interview(page)
    page.fill(
        "#interview-text", "Prefetch overlaps the input work of the next step with this step's compute."
    )
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#interview-step .model-answer")).to_be_visible()


def _interview_summed_up(page: Page) -> None:
    _start_interview(page, tier="junior")  # no follow-up: one rating ends it
    page.fill("#interview-text", "It overlaps the input work with compute.")
    page.get_by_role("button", name="Submit answer").click()
    page.locator(".rating button[value=hard]").click()
    expect(page.locator(".interview-summary")).to_be_visible()
    page.locator(".answered-text summary").first.click()  # the answer unfolded, as a reader would


SITE_PAGES = [
    SitePage("library", "/", screenshot=True),
    *(
        SitePage(f"card-{t}", "/cards/{card_id}", f"/cards/{{card_id}}?tier={t}")
        for t in ("junior", "senior")
    ),
    SitePage("card-principal", "/cards/{card_id}", "/cards/{card_id}?tier=principal", screenshot=True),
    SitePage("card-middle", "/cards/{card_id}", "/cards/{card_id}?tier=middle", screenshot=True),
    SitePage(
        "card-answered",
        "/cards/{card_id}",
        "/cards/{card_id}?tier=middle",
        act=_answer_and_rate,
        screenshot=True,
    ),
    SitePage("card-revealed", "/cards/{card_id}", "/cards/{card_id}?tier=senior", act=_reveal),
    SitePage("card-quiz-checked", "/cards/{card_id}", "/cards/{card_id}?tier=middle", act=_check_quiz),
    SitePage(
        "card-note-open",
        "/cards/{card_id}",
        "/cards/{card_id}?tier=middle",
        act=_open_a_note,
        screenshot=True,
    ),
    SitePage("card-note", "/cards/{card_id}/notes/{note_key}"),
    SitePage("card-quiz", "/cards/{card_id}/quiz", "/cards/{card_id}/quiz?tier=middle"),
    SitePage("card-history", "/cards/{card_id}/history"),
    SitePage("card-demo-runs", "/cards/{card_id}/demo-runs"),
    SitePage("demo-result", "/demos/{run_id}", act=_select_a_bar, screenshot=True),
    SitePage("demo-status", "/demos/{run_id}/status"),
    SitePage("recording", "/recordings/{recording_id}", screenshot=True),
    SitePage("answer-suggestion", "/attempts/{attempt_id}/suggestion"),
    SitePage("library-marks", "/library/marks"),
    SitePage("practice", "/practice", screenshot=True),
    SitePage("practice-revealed", "/practice", act=_practice_reveal),
    SitePage("interview", "/interview", screenshot=True),
    SitePage("interview-question", "/interview/{session_id}", "/interview", act=_start_interview),
    SitePage("interview-answered", "/interview/{session_id}", "/interview", act=_interview_answered),
    SitePage(
        "interview-summary",
        "/interview/{session_id}",
        "/interview",
        act=_interview_summed_up,
        screenshot=True,
    ),
    SitePage("author", "/author", screenshot=True),
    SitePage("author-problems", "/author", act=_break_the_card),
    SitePage("author-edit", "/author/cards/{card_id}", screenshot=True),
    SitePage("author-suggest", "/author/cards/{card_id}", person="max", screenshot=True),
    SitePage("author-reviews", "/author/reviews", screenshot=True),
    SitePage("author-review", "/author/reviews/{proposal_id}", screenshot=True),
    SitePage("progress", "/progress", screenshot=True),
    SitePage("team", "/team", screenshot=True),
    SitePage("team-member", "/team/members/{name}", screenshot=True),
    SitePage(
        "team-member-interview",
        "/team/members/{name}/interviews/{session_id}",
        "/team/members/{name}/interviews/{assigned_interview}",
        screenshot=True,
    ),
    SitePage("admin-users", "/admin/users", screenshot=True),
    SitePage("audit", "/admin/audit"),
    SitePage("account", "/account", screenshot=True),
    SitePage("account-privacy", "/account/privacy"),
    SitePage("login", "/login", person=None, screenshot=True),
    SitePage("invite", "/invite/{token}", person=None),
    SitePage("docs", "/docs"),
    SitePage("not-found", "/cards/{card_id}", "/cards/no-such-card", status=404, screenshot=True),
    SitePage("forbidden", "/team", person="max", status=403),
    SitePage("oidc-login", "/auth/oidc/login", person=None, status=404),
    SitePage("oidc-callback", "/auth/oidc/callback", person=None, status=404),
]


@contextmanager
def site_page(browser: Browser, site: Site, entry: SitePage, viewport: ViewportSize) -> Iterator[Page]:
    """`entry` opened at `viewport` as its person, loaded, and acted on."""
    cookies = site.cookies[entry.person] if entry.person else None
    with open_page(browser, viewport, cookies, site.url, entry.status) as page:
        response = page.goto(entry.url(site))
        assert response is not None and response.status == entry.status, entry.name
        page.wait_for_load_state("networkidle")
        if entry.act:
            entry.act(page)
            page.wait_for_load_state("networkidle")
        yield page

"""Suggested edits through the API and the review pages: a member proposes, an author accepts or
declines, the card changes for everyone at once and the content repository gets the commit."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.authoring import edited, editing_team, git, signed_in
from tests.helpers.html import one, soup_of
from tests.helpers.payloads import attempt_payload

OLD_POINT = "the buffer holds batches when it is last"
NEW_POINT = "the buffer holds whole batches when it goes last"
REASON = "say whole batches"


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[FastAPI, Path]]:
    with editing_team(tmp_path) as made:
        yield made


def owner_text(content: Path) -> str:
    return (content / f"{OWNER_CARD}.md").read_text(encoding="utf-8")


def propose(client: TestClient, markdown: str, reason: str = REASON, card_id: str = OWNER_CARD) -> dict:
    response = client.post(f"/api/cards/{card_id}/proposals", json={"markdown": markdown, "reason": reason})
    assert response.status_code == 201, response.text
    return response.json()


def points(client: TestClient) -> list[str]:
    return [p["markdown"] for p in client.get(f"/api/cards/{OWNER_CARD}").json()["sections"]["answer_points"]]


def test_a_members_edit_accepted_changes_the_card_for_everyone_and_is_committed(
    team: tuple[FastAPI, Path],
) -> None:
    app, content = team
    alice, ada, bob = signed_in(app, "alice"), signed_in(app, "ada"), signed_in(app, "bob")
    made = propose(alice, edited(owner_text(content), OLD_POINT, NEW_POINT))
    assert made["status"] == "open"
    assert OLD_POINT in owner_text(content), "a proposal changes nothing before it is accepted"

    accepted = ada.post(f"/api/proposals/{made['id']}/accept")
    assert accepted.json() == {"id": made["id"], "status": "accepted"}
    assert NEW_POINT in owner_text(content)
    assert any(NEW_POINT in text for text in points(bob)), "served at once, with no restart"
    log = git(content, "log", "-1", "--format=%an|%cn|%s%n%b")
    assert log.startswith("alice|ada|Edit Why does")
    assert REASON in log
    assert git(content, "status", "--porcelain") == ""

    listed = alice.get("/api/proposals").json()
    assert [(p["id"], p["status"], p["reviewer"]) for p in listed] == [(made["id"], "accepted", "ada")]
    assert listed[0]["commit"] == git(content, "rev-parse", "HEAD")


def test_accepting_keeps_a_members_earlier_answers(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice, ada = signed_in(app, "alice"), signed_in(app, "ada")
    before = alice.post(
        f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(text="it overlaps", seconds=9)
    )
    assert before.status_code == 201
    made = propose(alice, edited(owner_text(content), "## Basics\n", "## Basics\nA clearer opening. "))
    assert ada.post(f"/api/proposals/{made['id']}/accept").status_code == 200
    history = alice.get(f"/api/attempts?card_id={OWNER_CARD}").json()
    assert [a["text"] for a in history] == ["it overlaps"]


def test_members_list_their_own_and_authors_list_everyones(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice, bob, ada = signed_in(app, "alice"), signed_in(app, "bob"), signed_in(app, "ada")
    mine = propose(alice, edited(owner_text(content), OLD_POINT, NEW_POINT), reason="alice's reason")
    propose(
        bob, edited(owner_text(content), OLD_POINT, "the buffer holds batches at the end"), reason="bob's"
    )
    assert [p["reason"] for p in alice.get("/api/proposals").json()] == ["alice's reason"]
    assert {p["proposer"] for p in ada.get("/api/proposals?status=open").json()} == {"alice", "bob"}
    assert bob.post(f"/api/proposals/{mine['id']}/accept").status_code == 403
    assert bob.post(f"/api/proposals/{mine['id']}/decline", json={"reason": "no"}).status_code == 403
    assert OLD_POINT in owner_text(content)


def test_a_decline_says_why_on_the_proposers_account_page(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice, ada = signed_in(app, "alice"), signed_in(app, "ada")
    made = propose(alice, edited(owner_text(content), OLD_POINT, NEW_POINT))
    declined = ada.post(f"/api/proposals/{made['id']}/decline", json={"reason": "batches is already whole"})
    assert declined.json() == {"id": made["id"], "status": "declined"}
    assert ada.post(f"/api/proposals/{made['id']}/accept").status_code == 409
    panel = one(soup_of(alice.get("/account")), "#suggested-edits")
    assert "declined" in panel.get_text()
    assert "Why not: batches is already whole" in " ".join(panel.get_text().split())
    assert OLD_POINT in owner_text(content)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"markdown": "", "reason": REASON}, "problems"),
        ({"markdown": "x" * 80_001, "reason": REASON}, "80000"),
        ({"reason": REASON}, "markdown"),
        ({"markdown": "---\nid: x\n---\n", "reason": ""}, "reason"),
        ({"markdown": "a\x00b", "reason": REASON}, "NUL"),
    ],
)
def test_a_refused_proposal_stores_nothing(team: tuple[FastAPI, Path], body: dict, said: str) -> None:
    app, _ = team
    alice = signed_in(app, "alice")
    response = alice.post(f"/api/cards/{OWNER_CARD}/proposals", json=body)
    assert response.status_code == 422
    assert said in response.text
    assert alice.get("/api/proposals").json() == []


def test_an_edit_must_keep_the_id_and_change_something(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice = signed_in(app, "alice")
    same = alice.post(
        f"/api/cards/{OWNER_CARD}/proposals", json={"markdown": owner_text(content), "reason": "x"}
    )
    assert same.status_code == 422
    assert "change something" in same.text
    moved = edited(owner_text(content), f"id: {OWNER_CARD}", "id: ../../etc/passwd")
    other = alice.post(f"/api/cards/{OWNER_CARD}/proposals", json={"markdown": moved, "reason": "x"})
    assert other.status_code == 422
    renamed = edited(owner_text(content), f"id: {OWNER_CARD}", "id: another-card")
    assert (
        "must stay"
        in alice.post(f"/api/cards/{OWNER_CARD}/proposals", json={"markdown": renamed, "reason": "x"}).text
    )
    assert (
        alice.post("/api/cards/no-such-card/proposals", json={"markdown": "x", "reason": "x"}).status_code
        == 404
    )
    assert alice.get("/api/proposals").json() == []


def test_proposals_are_throttled_per_person(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice, bob = signed_in(app, "alice"), signed_in(app, "bob")
    for n in range(5):  # the team's PROPOSALS_PER_HOUR
        propose(alice, edited(owner_text(content), OLD_POINT, f"{NEW_POINT} {n}"))
    refused = alice.post(
        f"/api/cards/{OWNER_CARD}/proposals",
        json={"markdown": edited(owner_text(content), OLD_POINT, NEW_POINT), "reason": REASON},
    )
    assert refused.status_code == 429
    assert "at most 5" in refused.json()["detail"]
    assert len(alice.get("/api/proposals").json()) == 5
    propose(bob, edited(owner_text(content), OLD_POINT, NEW_POINT))


def test_a_card_deleted_since_cannot_take_the_edit(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice, ada = signed_in(app, "alice"), signed_in(app, "ada")
    made = propose(alice, edited(owner_text(content), OLD_POINT, NEW_POINT))
    (content / f"{OWNER_CARD}.md").unlink()
    app.state.catalogue.reload()
    refused = ada.post(f"/api/proposals/{made['id']}/accept")
    assert refused.status_code == 409
    assert "was deleted since this edit was suggested" in refused.json()["detail"]
    assert not (content / f"{OWNER_CARD}.md").exists()
    assert ada.get("/api/proposals").json()[0]["status"] == "open"


def test_a_card_changed_since_is_not_overwritten_unseen(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice, ada = signed_in(app, "alice"), signed_in(app, "ada")
    made = propose(alice, edited(owner_text(content), OLD_POINT, NEW_POINT))
    path = content / f"{OWNER_CARD}.md"
    path.write_text(
        edited(owner_text(content), "## Basics\n", "## Basics\nChanged on the host. "), encoding="utf-8"
    )
    app.state.catalogue.reload()
    refused = ada.post(f"/api/proposals/{made['id']}/accept")
    assert refused.status_code == 409
    assert "Changed on the host" in path.read_text(encoding="utf-8")
    # The review page shows what changed since, and accepting from it is a decision made seeing it.
    page = soup_of(ada.get(f"/author/reviews/{made['id']}"))
    assert "Changed on the host" in one(page, "#moved-heading").find_parent("section").get_text()
    form = one(page, "form[action$='/accept']")
    seen = one(form, "textarea[name=seen]").get_text().removeprefix("\n")
    markdown = edited(path.read_text(encoding="utf-8"), OLD_POINT, NEW_POINT)
    done = ada.post(f"/author/reviews/{made['id']}/accept", data={"markdown": markdown, "seen": seen})
    assert done.status_code == 303
    assert NEW_POINT in path.read_text(encoding="utf-8")
    assert "Changed on the host" in path.read_text(encoding="utf-8")


def test_the_review_page_shows_the_change_its_checks_and_its_cost_to_history(
    team: tuple[FastAPI, Path],
) -> None:
    app, content = team
    alice, ada = signed_in(app, "alice"), signed_in(app, "ada")
    alice.post(
        f"/api/cards/{OWNER_CARD}/attempts",
        json={**attempt_payload(text="it holds batches", seconds=9), "points": [2]},
    )
    made = propose(alice, edited(owner_text(content), OLD_POINT, NEW_POINT + " <script>alert(1)</script>"))
    queue = soup_of(ada.get("/author/reviews"))
    assert [a["href"] for a in queue.select("#waiting a")] == [f"/author/reviews/{made['id']}"]
    page = soup_of(ada.get(f"/author/reviews/{made['id']}"))
    assert one(page, "table.diff tr.changed td.old").get_text() == f"3. {OLD_POINT}"
    assert "accepts the new text" in one(page, ".author-status").get_text()
    history = one(page, ".history-change").get_text()
    assert "was reworded" in history
    assert page.select("script:-soup-contains('alert(1)')") == [], "card markdown renders with HTML off"
    assert "Of the 1 answer recorded to this card, 1 ticked a point that goes" in " ".join(
        one(page, "#checks-heading").find_parent("section").get_text().split()
    )


def test_every_step_is_in_the_audit_log(team: tuple[FastAPI, Path]) -> None:
    app, content = team
    alice, ada, root = signed_in(app, "alice"), signed_in(app, "ada"), signed_in(app, "root")
    made = propose(alice, edited(owner_text(content), OLD_POINT, NEW_POINT))
    ada.post(f"/author/reviews/{made['id']}/comment", data={"text": "looks right"})
    ada.post(f"/api/proposals/{made['id']}/accept")
    kinds = [tr["data-kind"] for tr in soup_of(root.get("/admin/audit")).select("tr.event")]
    assert {"proposal_made", "proposal_commented", "proposal_accepted"} <= set(kinds)

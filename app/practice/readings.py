"""The entailment model's reading of an answer, which replaces the lexical suggestion stored with it
(app/practice/suggestions.py) when a worker sends it: asked as the answer is recorded, while a live
worker reads the claims lanes; done on the worker in the claims child (app/coverage/child.py); and
what claims supplies the worker (`CLAIMS`).

Each step is safe to repeat: a reading is stored only over a row still `queued`, so a job queued
twice is stored once, and a starting worker puts back every queued reading missing from the queue
(its worker died holding it). A reading that fails or does not come leaves the lexical suggestion,
and the page says so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.catalogue import Catalogue
from app.coverage import reading
from app.coverage.checker import Coverage
from app.coverage.child import CHILD, Job
from app.jobs.beats import live_capabilities
from app.jobs.child_process import ChildCancelled, ChildCrashed, ChildFailed, ChildTimedOut, ChildUnavailable
from app.jobs.executors import OneJobExecutor, Supply
from app.jobs.queue import JobQueue, claims_lanes_for, live_lane
from app.practice import suggestions
from app.practice.models import Attempt, AttemptCoverage

log = logging.getLogger("tiercards.worker")

# How long the model may take over one answer before its child is killed: an answer at the length
# limit is MAX_UNITS sentences, each asked about every claim of the card.
TIME_LIMIT_S = 30.0


@dataclass(frozen=True)
class Reader:
    """What the web needs to ask for a reading: the queue, and how recently a worker must have beat
    to count as alive."""

    queue: JobQueue
    alive_seconds: float


def lane_for(session: Session, reader: Reader) -> str | None:
    """The lane a reading asked now goes to: None when no live worker reads the claims lanes."""
    return live_lane("claims", live_capabilities(session, timeout_seconds=reader.alive_seconds))


def ask(row: AttemptCoverage, lane: str | None) -> None:
    """Mark the row's reading queued on `lane` (queued once committed), or unavailable with no lane.
    Part of the caller's unit of work; asked before the row is first stored, it costs no update."""
    row.reading = "queued" if lane is not None else "unavailable"


def send(reader: Reader, *, attempt_id: int, lane: str) -> None:
    """Queue the reading, after the commit that acknowledged the answer. A queue that is down costs
    the reading, never the answer: the page says the reading did not come."""
    try:
        reader.queue.enqueue(str(attempt_id), lane=lane)
    except Exception:
        log.exception("attempt %s: could not queue the model's reading", attempt_id)


@dataclass(frozen=True)
class Pending:
    """A queued reading as the worker reads it: the answer and what it answers."""

    attempt_id: int
    card_id: str
    follow_up: int | None
    text: str


def pending(session: Session, attempt_id: int) -> Pending | None:
    """The reading still queued for that attempt; None once stored, failed or gone."""
    found = session.execute(
        select(Attempt.card_id, Attempt.kind, Attempt.follow_up, Attempt.text)
        .join(AttemptCoverage, AttemptCoverage.attempt_id == Attempt.id)
        .where(Attempt.id == attempt_id, AttemptCoverage.reading == "queued")
    ).first()
    if found is None:
        return None
    card_id, kind, follow_up, text = found
    return Pending(attempt_id, card_id, follow_up if kind == "follow-up" else None, text or "")


def _queued(session: Session, attempt_id: int) -> tuple[Attempt, AttemptCoverage] | None:
    # The attempt first, as an assessment writes it: its ticks are read as they are committed.
    attempt = session.get(Attempt, attempt_id, with_for_update=True)
    row = session.get(AttemptCoverage, attempt_id, with_for_update=True)
    if attempt is None or row is None or row.reading != "queued":
        return None
    return attempt, row


def store(session: Session, *, attempt_id: int, coverage: Coverage) -> bool:
    """Store the model's reading over the lexical suggestion, if it is still queued; returns whether
    it was."""
    found = _queued(session, attempt_id)
    if found is not None:
        attempt, row = found
        suggestions.put(row, attempt=attempt, coverage=coverage)
        row.reading = "done"
    session.commit()
    return found is not None


def fail(session: Session, *, attempt_id: int) -> None:
    """The model could not read it: the lexical suggestion stays."""
    found = _queued(session, attempt_id)
    if found is not None:
        found[1].reading = "failed"
    session.commit()


def left_behind(session: Session, *, queue: JobQueue) -> list[str]:
    """Queued readings on no claims lane: a worker that died took them off the queue."""
    queued = session.scalars(select(AttemptCoverage.attempt_id).where(AttemptCoverage.reading == "queued"))
    present = queue.run_ids("claims")
    return [str(attempt_id) for attempt_id in queued if str(attempt_id) not in present]


def requeue_left_behind(session: Session, *, queue: JobQueue) -> int:
    """Put the readings a dead worker took back on the lane every reading worker reads. One another
    worker is reading right now, or the web has stored but not yet queued, goes on again too: it
    is stored once (only over a row still queued), so that costs a second reading, nothing more."""
    left = left_behind(session, queue=queue)
    for attempt_id in left:
        queue.enqueue(attempt_id, lane=claims_lanes_for(False)[0])
    return len(left)


class ReadingExecutor(OneJobExecutor):
    """Runs the read_claims task; the consumer gives it one job at a time, like demos."""

    @cached_property
    def catalogue(self) -> Catalogue:
        return Catalogue(self.settings.content_dir, self.settings.content_poll_seconds)

    def execute(self, attempt_id: str, lane: str) -> None:
        """The body of the read_claims task, for a job taken from `lane`."""
        if self.handed_back(attempt_id, lane):
            return
        with self.db.read_sessions() as session:
            found = pending(session, int(attempt_id))
        if found is None:
            log.info("attempt %s: its reading is no longer queued; skipped", attempt_id)
            return
        card = self.catalogue.get(found.card_id)
        if card is None or (found.follow_up is not None and found.follow_up >= len(card.follow_ups)):
            self._fail(found.attempt_id, "its card or follow-up is no longer served")
            return
        asked = reading.question(card, follow_up=found.follow_up, text=found.text)
        try:
            result = self.runner.run(
                Job(premises=asked.premises, hypotheses=asked.hypotheses),
                timeout_s=TIME_LIMIT_S,
                should_cancel=self.stopping.is_set,
            )
            coverage = reading.answer(
                card, follow_up=found.follow_up, text=found.text, probabilities=result["probabilities"]
            )
        except (ChildCancelled, ChildCrashed) as error:
            if self.stopping.is_set():
                self.queue.enqueue(attempt_id, lane=lane)
                log.info("attempt %s: reading handed back, the worker is stopping", attempt_id)
                return
            self._fail(found.attempt_id, error.message)
            return
        except ChildUnavailable as error:
            # The model loaded at start, so this is a fresh claims process after a crash that could
            # not load it: every later reading would fail too.
            self.queue.enqueue(attempt_id, lane=lane)
            self.lost = error.message
            log.warning(
                "worker stops reading answers with the model (%s); attempt %s handed back", error, attempt_id
            )
            return
        except ChildFailed as error:
            self._fail(found.attempt_id, error.detail or error.message)
            return
        except (ChildTimedOut, ValueError) as error:
            self._fail(found.attempt_id, str(error))
            return
        with self.db.write_sessions() as session:
            stored = store(session, attempt_id=found.attempt_id, coverage=coverage)
        log.info(
            "attempt %s: read by the model in %.2f s (%d pairs)%s",
            attempt_id,
            result["seconds"],
            len(asked.premises),
            "" if stored else ", already read",
        )

    def _fail(self, attempt_id: int, why: str) -> None:
        with self.db.write_sessions() as session:
            fail(session, attempt_id=attempt_id)
        log.warning("attempt %s: the model could not read it: %s", attempt_id, why)


CLAIMS = Supply(kind="claims", child=CHILD, executor=ReadingExecutor, lanes=claims_lanes_for, required=False)

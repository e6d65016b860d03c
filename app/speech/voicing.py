"""A mock interview's questions said aloud: asked by the web the first time a question is shown
(stored `queued`, then queued on the voice lane), said by a worker's voice child (app/speech/
voice.py), kept in the database once per voice and words, and served from there to every
replica. A question never said (no worker with flite, QUESTION_VOICE none, a failure) is shown
without its sound: the page keeps the question's text on screen either way.

Each step is safe to repeat: a sound is stored only over a row still `queued`, and a starting
worker puts back every queued question missing from the lane (its worker died holding it)."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.exceptions import NotFound, Unavailable
from app.jobs.beats import live_capabilities
from app.jobs.child_process import ChildCancelled, ChildCrashed, ChildFailed, ChildTimedOut, ChildUnavailable
from app.jobs.executors import OneJobExecutor, Supply
from app.jobs.queue import JobQueue, live_lane, voice_lanes_for
from app.speech.models import QuestionVoice
from app.speech.voice import CHILD, TIME_LIMIT_S, Job, said
from app.storage.base import utcnow
from app.storage.database import Database

log = logging.getLogger("tiercards.worker")

# How long `GET /api/voice/{key}` waits for a worker to say a question before answering 503: a
# question takes well under a second on a warm worker (`bench/question_voice.py`).
WAIT_S = 10.0
POLL_S = 0.05


def key(voice: str, words: str) -> str:
    return hashlib.sha256(f"{voice}\n{words}".encode()).hexdigest()


@dataclass(frozen=True)
class Asker:
    """What the web needs to ask for a question's sound: the queue, how recently a worker must
    have beat to count as alive, and the deployment's voice (QUESTION_VOICE)."""

    queue: JobQueue
    alive_seconds: float
    voice: str


def ask(session: Session, *, text: str, asker: Asker) -> str | None:
    """The key of `text` said in the deployment's voice, asked of a worker the first time (and
    committed before it is queued); None when it will not be said: voices are off, no live
    worker says questions, or saying it failed."""
    words = said(text)
    if asker.voice == "none" or not words:
        return None
    wanted = key(asker.voice, words)
    row = session.get(QuestionVoice, wanted)
    if row is not None:
        return None if row.status == "failed" else wanted
    lane = live_lane("voice", live_capabilities(session, timeout_seconds=asker.alive_seconds))
    if lane is None:
        return None
    try:
        with session.begin_nested():
            session.add(QuestionVoice(key=wanted, voice=asker.voice, text=words, status="queued"))
    except IntegrityError:
        return wanted  # another request asked for the same words at the same moment
    session.commit()
    try:
        asker.queue.enqueue(wanted, lane=lane)
    except Exception:  # a queue that is down costs the sound, never the page
        log.exception("question %s: could not queue its voice", wanted)
    return wanted


def sound(db: Database, *, wanted: str, wait_s: float = WAIT_S) -> bytes:
    """The sound of a question asked by `ask`, waiting up to `wait_s` for a worker to say it;
    each look a short read of its own, so no connection is held while waiting."""
    deadline = time.monotonic() + wait_s
    while True:
        with db.read_sessions() as session:
            found = session.execute(
                select(QuestionVoice.status, QuestionVoice.audio, QuestionVoice.error).where(
                    QuestionVoice.key == wanted
                )
            ).first()
        if found is None:
            raise NotFound(f"no question is said with key '{wanted}'")
        status, audio, error = found
        if status == "done" and audio is not None:
            return bytes(audio)
        if status == "failed":
            raise NotFound(f"this question could not be said aloud: {error}")
        if time.monotonic() >= deadline:
            raise Unavailable("no worker has said this question yet; its text is on the page")
        time.sleep(POLL_S)


def _finish(session: Session, *, wanted: str, audio: bytes | None, error: str | None) -> bool:
    row = session.get(QuestionVoice, wanted, with_for_update=True)
    if row is None or row.status != "queued":
        session.commit()
        return False
    row.status, row.audio, row.error, row.finished_at = (
        ("done" if audio else "failed"),
        audio,
        error,
        utcnow(),
    )
    session.commit()
    return True


def requeue_left_behind(session: Session, *, queue: JobQueue) -> int:
    """Put back the questions still queued but on no lane: a worker that died took them."""
    queued = session.scalars(select(QuestionVoice.key).where(QuestionVoice.status == "queued"))
    present = queue.run_ids("voice")
    left = [wanted for wanted in queued if wanted not in present]
    for wanted in left:
        queue.enqueue(wanted, lane=voice_lanes_for(False)[0])
    return len(left)


class VoiceExecutor(OneJobExecutor):
    """Runs the say_question task; the consumer gives it one job at a time."""

    def execute(self, wanted: str, lane: str) -> None:
        if self.handed_back(wanted, lane):
            return
        with self.db.read_sessions() as session:
            found = session.execute(
                select(QuestionVoice.voice, QuestionVoice.text).where(
                    QuestionVoice.key == wanted, QuestionVoice.status == "queued"
                )
            ).first()
        if found is None:
            log.info("question %s: no longer queued; skipped", wanted)
            return
        voice, text = found
        try:
            result = self.runner.run(
                Job(text=text, voice=voice), timeout_s=TIME_LIMIT_S, should_cancel=self.stopping.is_set
            )
        except (ChildCancelled, ChildCrashed) as error:
            if self.stopping.is_set():
                self.queue.enqueue(wanted, lane=lane)
                return
            self._store(wanted, audio=None, error=error.message)
            return
        except ChildUnavailable as error:
            self.queue.enqueue(wanted, lane=lane)
            self.lost = error.message
            log.warning("worker stops saying questions (%s); question %s handed back", error, wanted)
            return
        except (ChildFailed, ChildTimedOut) as error:
            self._store(wanted, audio=None, error=error.message)
            return
        self._store(wanted, audio=result["audio"], error=None)
        log.info("question %s: said in %.2f s", wanted, result["seconds"])

    def _store(self, wanted: str, *, audio: bytes | None, error: str | None) -> None:
        with self.db.write_sessions() as session:
            _finish(session, wanted=wanted, audio=audio, error=error)
        if error:
            log.warning("question %s: could not be said: %s", wanted, error)


VOICE = Supply(kind="voice", child=CHILD, executor=VoiceExecutor, lanes=voice_lanes_for, required=False)

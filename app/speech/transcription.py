"""What speech supplies the worker (`TRANSCRIPTIONS`): its child (app/speech/child.py) and the
executor of one transcription: claim a queued recording, transcribe it in the speech child primed
with its card's terms, store how it ended (app/speech/recordings.py has the rules)."""

from __future__ import annotations

import logging
from functools import cached_property

from app.content.catalogue import Catalogue
from app.jobs.child_process import ChildCancelled, ChildCrashed, ChildFailed, ChildTimedOut, ChildUnavailable
from app.jobs.executors import OneJobExecutor, Supply
from app.jobs.queue import speech_lane, speech_lanes_for
from app.speech import recordings
from app.speech.child import CHILD, Job, time_limit_seconds
from app.speech.delivery import TARGET_WITHOUT_CARD_SECONDS
from app.speech.recogniser import card_terms

log = logging.getLogger("tiercards.worker")

CRASHED = "{what}. A fresh speech process was started; record it again if this happens twice."


class TranscriptionExecutor(OneJobExecutor):
    """Runs the transcribe task; the consumer gives it one job at a time, like demos."""

    @cached_property
    def catalogue(self) -> Catalogue:
        return Catalogue(self.settings.content_dir, self.settings.content_poll_seconds)

    def execute(self, recording_id: str, lane: str) -> None:
        """The body of the transcribe task, for a job taken from `lane`."""
        if self.handed_back(recording_id, lane):
            return
        with self.db.write_sessions() as session:
            claimed = recordings.claim(session, recording_id=recording_id, worker=self.name)
        if claimed is None:
            log.info("recording %s is no longer queued; skipped", recording_id)
            return
        self._transcribe(claimed, lane)

    def _job(self, claimed: recordings.Claimed) -> Job:
        # A card gone from the deck (renamed, deleted) has no terms to prime with, nor a target.
        card = self.catalogue.get(claimed.card_id)
        return Job(
            audio=claimed.audio,
            terms=card_terms(card) if card is not None else (),
            target_seconds=card.time_budget(claimed.kind)
            if card is not None
            else TARGET_WITHOUT_CARD_SECONDS,
            max_seconds=self.settings.max_recording_seconds,
        )

    def _transcribe(self, claimed: recordings.Claimed, lane: str) -> None:
        recording_id = claimed.recording_id
        # The declared length is the client's word (an API upload may give none): the limit is the
        # longest recording's, as decoding stops there.
        limit = time_limit_seconds(self.settings.max_recording_seconds)
        log.info("recording %s: transcribing (try %d, limit %.0f s)", recording_id, claimed.tries, limit)
        try:
            result = self.runner.run(self._job(claimed), timeout_s=limit, should_cancel=self.stopping.is_set)
        except (ChildCancelled, ChildCrashed) as error:
            if self.stopping.is_set():
                self._give_back(recording_id, lane)
                log.info("recording %s: handed back, the worker is stopping", recording_id)
                return
            message = CRASHED.format(what=f"{error.message[:1].upper()}{error.message[1:]}")
            with self.db.write_sessions() as session:
                gpu_alive = lane != speech_lane(False)
                again = recordings.retry_after_crash(
                    session, recording_id=recording_id, worker=self.name, gpu_alive=gpu_alive, error=message
                )
            recordings.enqueue_all(self.queue, again)
            self.db.erase_deleted()
            log.warning(
                "recording %s: %s (%s)", recording_id, error.message, "retried" if again else "failed"
            )
            return
        except ChildTimedOut:
            self._fail(
                recording_id,
                f"Transcribing went past its time limit of {limit:.0f} s, so the speech process was "
                "stopped. Record it again.",
            )
            return
        except ChildUnavailable as error:
            # The model loaded at start, so this is a fresh speech process after a crash that
            # could not load it (its files changed or went): every later recording would fail too.
            self._give_back(recording_id, lane)
            self.lost = error.message
            log.warning(
                "worker %s stops transcribing: the speech process could not load its model again (%s); "
                "recording %s was handed back for another worker",
                self.name,
                error.message,
                recording_id,
            )
            return
        except ChildFailed as error:
            # The page points at this log: the child's traceback where it sent one.
            log.error(
                "recording %s: the speech process raised %s", recording_id, error.detail or error.message
            )
            self._fail(
                recording_id,
                "The speech model could not transcribe this recording; the worker's log has the details.",
            )
            return
        if "refused" in result:
            self._fail(recording_id, str(result["refused"]))
            return
        keep = self.settings.recording_retention_days if self.settings.keep_recordings else None
        with self.db.write_sessions() as session:
            recordings.store_transcript(
                session, recording_id=recording_id, worker=self.name, result=result, keep_days=keep
            )
        if keep is None:
            self.db.erase_deleted()
        log.info(
            "recording %s: done, %.1f s at real-time factor %.2f",
            recording_id,
            result["duration_s"],
            result["real_time_factor"],
        )

    def _give_back(self, recording_id: str, lane: str) -> None:
        with self.db.write_sessions() as session:
            if recordings.give_back(session, recording_id=recording_id, worker=self.name, lane=lane):
                self.queue.enqueue(recording_id, lane=lane)

    def _fail(self, recording_id: str, error: str) -> None:
        with self.db.write_sessions() as session:
            recordings.store_failure(session, recording_id=recording_id, worker=self.name, error=error)
        self.db.erase_deleted()
        log.info("recording %s: failed (%s)", recording_id, error)


TRANSCRIPTIONS = Supply(
    kind="speech", child=CHILD, executor=TranscriptionExecutor, lanes=speech_lanes_for, required=False
)

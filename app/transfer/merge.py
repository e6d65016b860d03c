"""Merge an import file into a person's data: in batches, one import per person at a time.

Import merges and is idempotent: importing the same file twice changes nothing the second time.
- Attempts are matched on (card id, tier, kind, follow-up, created time); a match is kept as it is.
  A new attempt's coverage suggestion is stored as the file has it; none is computed.
- Review logs are matched on (card id, tier, review time); a match is kept as it is.
- A review state the database lacks is restored exactly as exported. One it already has is kept,
  unless the import added reviews for that card and tier: then it is replayed from all its logs.
- Reviews of a card no longer served are stored as they are, and its schedule is not replayed:
  no page schedules a card that is not served (its state, if the file has one, is restored).
- Settings are replaced by the file's, once everything else is in.
- A version-1 file names answer points and quiz items by position; they are mapped to ids through
  the cards as served now. One that cannot be mapped (card gone, position past its end) is kept,
  as "#<position>" for a point and as its old id ("p3") for a quiz item.

The whole file is validated first (app/transfer/reader.py); a malformed file stores nothing, nor
does one that would take the person past their import quota (app/transfer/quota.py).
Then each batch of BATCH_ROWS rows is its own short write transaction, so another person's answer
waits for one batch, not for the import (on SQLite there is one writer at a time); each holds the
person's lock, as their answers and a rebuild of their counts do. A batch finds
the rows already stored by their keys, which makes each row's merge idempotent: an import that
was cut short (its server killed) and is run again adds what is missing and nothing twice. The
replays it owed are kept in the person's ImportGuard row, in the transaction of the batch that
made them owed, and the next import of that person does them.
"""

import math
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from datetime import datetime, timedelta
from itertools import islice
from typing import Any, TypeVar, cast

from fsrs import Rating
from pydantic import BaseModel
from sqlalchemy import func, insert, select, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.service import lock_person
from app.content.cards import Card
from app.exceptions import Conflict, TooMany
from app.practice import preferences, quiz, scheduling, totals
from app.practice.models import Attempt, AttemptCoverage, ReviewLog, ReviewState
from app.storage.base import utcnow
from app.transfer import quota as quotas
from app.transfer.models import ImportGuard
from app.transfer.reader import YIELD_EVERY_ROWS, ImportFile, let_others_run
from app.transfer.schemas import STATE_BY_NAME, AttemptDoc, CoverageDoc, ReviewLogDoc, ReviewStateDoc

# Each batch is one write transaction; a few milliseconds of writing on SQLite.
BATCH_ROWS = 100
# A replay worked out while the person keeps reviewing that card is worked out again, this often.
REPLAY_TRIES = 3
Pair = tuple[str, str]
Item = TypeVar("Item")


class ImportResult(BaseModel):
    attempts_added: int = 0
    attempts_already_present: int = 0
    review_logs_added: int = 0
    review_logs_already_present: int = 0
    review_states_restored: int = 0
    review_states_replayed: int = 0
    review_states_kept: int = 0


def _batches(items: Iterable[Item]) -> Iterator[list[Item]]:
    iterator = iter(items)
    while batch := list(islice(iterator, BATCH_ROWS)):
        yield batch


def _pairs(stored: list[list[str]]) -> set[Pair]:
    return {(card_id, tier) for card_id, tier in stored}


class _Import:
    """One import's run: its sessions, its person, the cards as served now, its counts."""

    def __init__(
        self,
        *,
        sessions: Callable[[], Session],
        reads: Callable[[], Session],
        user_id: int,
        cards: Mapping[str, Card],
        lease: timedelta,
    ) -> None:
        self.sessions = sessions
        self.reads = reads
        self.user_id = user_id
        self.cards = cards
        self.lease = lease
        self.result = ImportResult()
        self.attempt_ids: dict[int, int] = {}  # an attempt id in the file: its id in the database
        self.kept: set[Pair] = set()  # served states the file has and the database had
        self.owner = secrets.token_hex(16)

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        """One write transaction of the import, the person locked first: a rebuild recounts them
        under that lock, so it counts a batch's rows once, before or after the batch."""
        with self.sessions() as session:
            lock_person(session, self.user_id)
            yield session

    def claim(self, file: ImportFile, on_start: Callable[[Session], None]) -> None:
        """Take the person's guard, or TooMany while another import of theirs runs."""
        now = utcnow()
        with self._writing() as session:
            guard = session.scalar(
                select(ImportGuard).where(ImportGuard.user_id == self.user_id).with_for_update()
            )
            if guard is None:
                session.add(
                    ImportGuard(
                        user_id=self.user_id,
                        lease_until=now + self.lease,
                        digest=file.digest,
                        owner=self.owner,
                    )
                )
            elif guard.lease_until > now:
                raise _busy(guard.lease_until - now)
            else:
                # Left by an import that never finished: its replays are still owed; what it
                # restored stays exempt from them only if this is the same file run again.
                if guard.digest != file.digest:
                    guard.restored = []
                guard.lease_until, guard.digest, guard.owner = now + self.lease, file.digest, self.owner
            on_start(session)
            try:
                session.commit()
            except IntegrityError:  # another import of theirs claimed it first
                raise _busy(self.lease) from None

    def _renew(
        self,
        session: Session,
        *,
        replays: AbstractSet[Pair] = frozenset(),
        restored: AbstractSet[Pair] = frozenset(),
    ) -> None:
        """Move the lease on, in the batch's own transaction, noting what the batch made owed."""
        values: dict[str, object] = {"lease_until": utcnow() + self.lease}
        if replays or restored:
            guard = self._guard(session)
            values["replays"] = sorted(_pairs(guard.replays) | replays)
            values["restored"] = sorted(_pairs(guard.restored) | restored)
        mine = (ImportGuard.user_id == self.user_id, ImportGuard.owner == self.owner)
        renewed: Any = session.execute(update(ImportGuard).where(*mine).values(**values))
        if renewed.rowcount != 1:
            raise _taken_over()

    def _guard(self, session: Session, *, lock: bool = True) -> ImportGuard:
        """The person's guard, still this import's own (with `lock`, locked until commit on
        PostgreSQL), or Conflict."""
        query = select(ImportGuard).where(ImportGuard.user_id == self.user_id)
        if lock:
            query = query.with_for_update().execution_options(populate_existing=True)
        guard = session.scalar(query)
        if guard is None or guard.owner != self.owner:
            raise _taken_over()
        return guard

    # Each batch's rows are made before its transaction begins: the write turn is held only for
    # the look-up of what is stored already and the insert.

    def attempts(self, docs: list[AttemptDoc]) -> None:
        rows: dict[tuple[object, ...], tuple[list[int], dict[str, object]]] = {}
        suggested: dict[tuple[object, ...], CoverageDoc] = {}
        docs_by_key: dict[tuple[object, ...], AttemptDoc] = {}
        for doc in docs:
            key: tuple[object, ...] = doc.card_id, doc.tier, doc.kind, doc.follow_up, doc.created_at
            if key in rows:  # a key twice in the file is added once
                rows[key][0].append(doc.id)
                continue
            docs_by_key[key] = doc
            rows[key] = [doc.id], {"user_id": self.user_id, **doc.model_dump(exclude={"id", "coverage"})}
            if doc.coverage is not None:
                suggested[key] = doc.coverage
        with self._writing() as session:
            found = session.execute(
                select(
                    Attempt.id,
                    Attempt.card_id,
                    Attempt.tier,
                    Attempt.kind,
                    Attempt.follow_up,
                    Attempt.created_at,
                )
                .where(Attempt.user_id == self.user_id)
                .where(tuple_(Attempt.card_id, Attempt.created_at).in_({(key[0], key[-1]) for key in rows}))
            )
            present = {
                (card, tier, kind, follow_up, at): row_id for row_id, card, tier, kind, follow_up, at in found
            }
            new = [(key, doc_ids, row) for key, (doc_ids, row) in rows.items() if key not in present]
            for stored_key, (doc_ids, _row) in rows.items():
                if stored_key in present:
                    self.attempt_ids.update(dict.fromkeys(doc_ids, present[stored_key]))
            if new:
                totals.count_answers(
                    session,
                    user_id=self.user_id,
                    answers=[docs_by_key[key] for key, _, _ in new],
                    cards=self.cards,
                )
                stored = session.scalars(
                    insert(Attempt).returning(Attempt.id, sort_by_parameter_order=True),
                    [row for _, _, row in new],
                )
                coverage = []
                for (key, doc_ids, _row), row_id in zip(new, stored, strict=True):
                    self.attempt_ids.update(dict.fromkeys(doc_ids, row_id))
                    if key in suggested:  # stored as exported: an import computes no suggestion
                        coverage.append({"attempt_id": row_id, **suggested[key].model_dump()})
                if coverage:
                    session.execute(insert(AttemptCoverage), coverage)
            self._renew(session)
            session.commit()
        self.result.attempts_added += len(new)
        self.result.attempts_already_present += len(docs) - len(new)

    def review_logs(self, docs: list[ReviewLogDoc]) -> None:
        rows: dict[tuple[object, ...], dict[str, object]] = {}
        for doc in docs:
            attempt_id = None if doc.attempt_id is None else self.attempt_ids[doc.attempt_id]
            key = doc.card_id, doc.tier, doc.review_datetime
            row = {
                "user_id": self.user_id,
                **doc.model_dump(exclude={"attempt_id"}),
                "attempt_id": attempt_id,
            }
            rows.setdefault(key, row)
        with self._writing() as session:
            found = session.execute(
                select(ReviewLog.card_id, ReviewLog.tier, ReviewLog.review_datetime)
                .where(ReviewLog.user_id == self.user_id)
                .where(tuple_(ReviewLog.card_id, ReviewLog.tier, ReviewLog.review_datetime).in_(rows))
            )
            logged = {(card, tier, at) for card, tier, at in found}
            linked = {row["attempt_id"] for row in rows.values()} - {None}
            # review_logs.attempt_id is unique: an attempt that has a review keeps it.
            reviewed: set[object] = set(
                session.scalars(select(ReviewLog.attempt_id).where(ReviewLog.attempt_id.in_(linked)))
            )
            new = []
            for log_key, row in rows.items():
                if log_key not in logged and (row["attempt_id"] is None or row["attempt_id"] not in reviewed):
                    new.append(row)
                    reviewed.add(row["attempt_id"])
            if new:
                session.execute(insert(ReviewLog), new)
                totals.count_reviews(
                    session,
                    user_id=self.user_id,
                    reviews=[
                        (cast(datetime, row["review_datetime"]), row["attempt_id"] is None) for row in new
                    ],
                )
                self._count_again_unreplayed(session, new)
            owed = {(str(row["card_id"]), str(row["tier"])) for row in new if row["card_id"] in self.cards}
            self._renew(session, replays=owed)
            session.commit()
        self.result.review_logs_added += len(new)
        self.result.review_logs_already_present += len(docs) - len(new)

    def review_states(self, docs: list[ReviewStateDoc]) -> None:
        with self._writing() as session:
            keys = {(d.card_id, d.tier) for d in docs}
            found = session.execute(
                select(ReviewState.card_id, ReviewState.tier)
                .where(ReviewState.user_id == self.user_id)
                .where(tuple_(ReviewState.card_id, ReviewState.tier).in_(keys))
            )
            present: set[Pair] = {(card, tier) for card, tier in found}
            missing = [d for d in docs if (d.card_id, d.tier) not in present]
            if missing:
                session.execute(insert(ReviewState), [self._state_row(d) for d in missing])
                self._count_again_restored(session, {(d.card_id, d.tier) for d in missing})
            self.result.review_states_restored += len(missing)
            self.result.review_states_kept += len(present)
            self.kept |= {pair for pair in present if pair[0] in self.cards}
            restored: set[Pair] = {(d.card_id, d.tier) for d in missing if d.card_id in self.cards}
            self._renew(session, restored=restored)
            session.commit()

    def _count_again_unreplayed(self, session: Session, new: list[dict[str, object]]) -> None:
        """A state of a card no longer served is not replayed: the reviews rated again that the
        import adds to it are added to its count here (a served card's replay recounts them)."""
        again = Counter(
            (str(row["card_id"]), str(row["tier"]))
            for row in new
            if row["card_id"] not in self.cards and row["rating"] == int(Rating.Again)
        )
        for (card_id, tier), count in again.items():
            session.execute(
                update(ReviewState)
                .where(
                    ReviewState.user_id == self.user_id,
                    ReviewState.card_id == card_id,
                    ReviewState.tier == tier,
                )
                .values(again=ReviewState.again + count)
            )

    def _count_again_restored(self, session: Session, pairs: set[Pair]) -> None:
        """A state restored as exported (the file has no count of its reviews rated again): the
        count from its reviews, all of which the import has stored by now."""
        session.execute(
            update(ReviewState)
            .where(
                ReviewState.user_id == self.user_id, tuple_(ReviewState.card_id, ReviewState.tier).in_(pairs)
            )
            .values(again=totals.again_count()),
            execution_options={"synchronize_session": False},
        )

    def _state_row(self, doc: ReviewStateDoc) -> dict[str, object]:
        return {
            "user_id": self.user_id,
            **doc.model_dump(exclude={"state"}),
            "state": STATE_BY_NAME[doc.state],
        }

    def finish(self, file: ImportFile) -> None:
        """The owed replays; then the settings, and the guard goes."""
        with self.reads() as session:
            guard = self._guard(session, lock=False)
            owed = sorted(_pairs(guard.replays) - _pairs(guard.restored))
        for card_id, tier in owed:
            self._replay(card_id, tier)
        self.result.review_states_replayed = len(owed)
        # A kept state that got new reviews was replayed, not kept.
        self.result.review_states_kept -= len(self.kept & set(owed))
        with self._writing() as session:
            session.delete(self._guard(session))
            preferences.stage(session, user_id=self.user_id, settings=file.settings)
            session.commit()

    def _replay(self, card_id: str, tier: str) -> None:
        """One card's schedule from all its reviews, worked out outside the write turn (a card
        may have hundreds of thousands), then written in a short transaction if no review of it
        came or went meanwhile; else worked out again."""
        where = (ReviewLog.user_id == self.user_id, ReviewLog.card_id == card_id, ReviewLog.tier == tier)
        seen = select(func.count(), func.max(ReviewLog.id), func.sum(ReviewLog.rating)).where(*where)
        reviews = select(ReviewLog.id, ReviewLog.rating, ReviewLog.review_datetime).where(*where)
        for _attempt in range(REPLAY_TRIES):
            # A pass over a card's reviews may take longer than the lease: it is renewed first.
            with self._writing() as session:
                self._renew(session)
                session.commit()
            fresh = ReviewState(user_id=self.user_id, card_id=card_id, tier=tier)
            witness = _Witness()
            with self.reads() as session:
                sched = scheduling.scheduler_for(session, self.user_id)
                rows = session.execute(
                    reviews.order_by(ReviewLog.review_datetime, ReviewLog.id).execution_options(
                        yield_per=1000
                    )
                )
                scheduling.rebuild(fresh, sched=sched, reviews=witness.reviews(rows))
            with self._writing() as session:
                if tuple(session.execute(seen).one()) == witness.figures:
                    row = scheduling.get_state(session, user_id=self.user_id, card_id=card_id, tier=tier)
                    if row is None and witness.figures[0]:
                        session.add(fresh)
                    elif row is not None and witness.figures[0]:
                        fresh.id = row.id
                        session.merge(fresh)
                    elif row is not None:
                        session.delete(row)
                    self._owe_no_more(session, (card_id, tier))
                    session.commit()
                    return
        with self._writing() as session:  # reviewed all along: in the write turn, then
            scheduling.replay(session, user_id=self.user_id, card_id=card_id, tier=tier)
            self._owe_no_more(session, (card_id, tier))
            session.commit()

    def _owe_no_more(self, session: Session, pair: Pair) -> None:
        guard = self._guard(session)
        guard.replays = sorted(_pairs(guard.replays) - {pair})
        guard.lease_until = utcnow() + self.lease

    def give_up(self) -> None:
        """After a failure: the guard goes, or, while it holds owed replays, only its lease."""
        with self._writing() as session:
            guard = session.get(ImportGuard, self.user_id)
            if guard is None or guard.owner != self.owner:  # taken over: it is the new one's
                return
            if guard.replays:
                guard.lease_until = utcnow()
            else:
                session.delete(guard)
            session.commit()


class _Witness:
    """What shows that no review of a card came or went: their count, largest id, rating sum."""

    def __init__(self) -> None:
        self.figures: tuple[int, int | None, int | None] = (0, None, None)

    def reviews(self, rows: Iterable[Any]) -> Iterator[tuple[int, datetime]]:
        """The (rating, time) of each row of (id, rating, time), counted as they pass."""
        for row_id, rating, at in rows:
            count, last, total = self.figures
            self.figures = count + 1, max(last or 0, row_id), (total or 0) + rating
            if count % YIELD_EVERY_ROWS == 0:  # a card's replay may run over many reviews
                let_others_run()
            yield rating, at


def _busy(wait: timedelta) -> TooMany:
    return TooMany(
        "another import of yours is still running: try again when it has finished",
        retry_after=max(1, math.ceil(wait.total_seconds())),
    )


def _taken_over() -> Conflict:
    return Conflict(
        "this import stopped reporting for longer than its lease and another import of yours took"
        " over: what it merged is kept, and running the file again finishes it"
    )


def refuse_while_running(session: Session, user_id: int) -> None:
    """TooMany while an import of `user_id`'s holds its lease: asked before a file is read, so a
    second upload costs no read (claim, later, is what makes it one at a time)."""
    lease_until = session.scalar(select(ImportGuard.lease_until).where(ImportGuard.user_id == user_id))
    now = utcnow()
    if lease_until is not None and lease_until > now:
        raise _busy(lease_until - now)


def merge(
    *,
    sessions: Callable[[], Session],
    reads: Callable[[], Session],
    user_id: int,
    file: ImportFile,
    cards: Mapping[str, Card],
    lease: timedelta,
    quota: int,
    on_start: Callable[[Session], None],
) -> ImportResult:
    """Merge `file` into the person's data (see the module docstring). `sessions` makes write
    sessions, `reads` read sessions; `on_start` stages what should be stored with the claim (the audit line); `cards`,
    the cards as served now, map a version-1 file's positions and say which cards are served.
    TooLarge, nothing stored, when it would leave the person more than `quota` rows."""
    adding = quotas.rows_to_add(reads, user_id=user_id, file=file, quota=quota)

    def start(session: Session) -> None:
        quotas.check(session, user_id=user_id, adding=adding, quota=quota)
        on_start(session)

    run = _Import(sessions=sessions, reads=reads, user_id=user_id, cards=cards, lease=lease)
    run.claim(file, start)
    try:
        attempts = file.attempts()
        if file.version == 1:
            attempts = (_with_ids(a, cards.get(a.card_id)) for a in attempts)
        for attempt_batch in _batches(attempts):
            run.attempts(attempt_batch)
        for log_batch in _batches(file.review_logs()):
            run.review_logs(log_batch)
        for state_batch in _batches(file.review_states()):
            run.review_states(state_batch)
        run.finish(file)
    except BaseException:
        run.give_up()
        raise
    return run.result


def _with_ids(attempt: AttemptDoc, card: Card | None) -> AttemptDoc:
    """A version-1 attempt with ids for its positions (see the module docstring)."""
    point_ids = dict(enumerate(card.point_ids)) if card else {}
    choice_ids = quiz.positional_ids(card) if card else {}
    positions = cast(list[int], attempt.points)  # the file was checked: version 1 has positions
    return attempt.model_copy(
        update={
            "points": [point_ids.get(p, f"#{p}") for p in positions],
            "choices": None if attempt.choices is None else [choice_ids.get(c, c) for c in attempt.choices],
        }
    )

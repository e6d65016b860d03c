"""How often a password may be checked, after OWASP's Authentication Cheat Sheet.

A check is recorded (as pending) before the password is verified, in a short write transaction
that first serialises checks for the same name and address (SQLite: its one writer; PostgreSQL: an
advisory lock on each), so a burst sent at once counts itself and stops at the limit. The password
is verified outside any transaction: argon2 takes a few hundred milliseconds, and on SQLite
everyone else's writes would wait for it. Then the outcome is written.

Failures are counted per name and address, per address (an IPv6 address by its /64), and per
name from anywhere (a longer window: guessing from many addresses). A browser that signed in as
that person before carries a device cookie (signed, naming the person); its checks are counted
per cookie instead, and no per-address limit holds it, so strangers who exhaust the name's or the
address's limits do not lock its owner out. Successful sign-ins are limited per address (such a
browser's excepted). Unknown names and people without a password are verified against a dummy
hash, so they cost as long as real ones.
"""

import ipaddress
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from itsdangerous import BadData, URLSafeTimedSerializer
from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.orm import Session

from app.accounts import audit, passwords, service
from app.accounts.models import SignInAttempt, User
from app.exceptions import TooMany
from app.storage.base import utcnow

DEVICE_COOKIE = "tiercards_device"
DEVICE_DAYS = 365
# A device cookie older than this is no longer trusted (it carries when it was signed), however
# long the browser kept it.
DEVICE_MAX_AGE_SECONDS = DEVICE_DAYS * 86400
WINDOW = timedelta(minutes=15)
NAME_WINDOW = timedelta(hours=1)
MAX_FAILURES_PER_NAME_AND_ADDRESS = 5
MAX_FAILURES_PER_ADDRESS = 20
MAX_FAILURES_PER_NAME = 20
MAX_FAILURES_PER_DEVICE = 5
# Advisory lock namespaces on PostgreSQL (pg_advisory_xact_lock(namespace, hashtext(key))).
_NAME_LOCK, _ADDRESS_LOCK = 1, 2
FAILED_KIND = {"sign_in": "sign_in_failed", "password": "password_check_failed"}


@dataclass(frozen=True)
class Check:
    """A password check let through: its recorded attempt, and what to verify against."""

    attempt_id: int
    user_id: int | None
    password_hash: str
    # False for an unknown name, a person without a password or a disabled one: never a match.
    usable: bool


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt="tiercards-device")


def device_cookie(secret: str, name: str) -> str:
    """A new device cookie for a browser that just signed in as `name`."""
    return str(_serializer(secret).dumps([name, secrets.token_hex(8)]))


def trusted_device(secret: str, *, cookie: str | None, name: str) -> str | None:
    """The nonce of `cookie` if it is a valid device cookie for `name`, else None."""
    if not cookie or len(cookie) > 400:
        return None
    try:
        named, nonce = _serializer(secret).loads(cookie, max_age=DEVICE_MAX_AGE_SECONDS)
    except (BadData, TypeError, ValueError):
        return None
    return nonce if named == name and isinstance(nonce, str) and len(nonce) <= 32 else None


def counted_address(address: str | None) -> str | None:
    """The address the per-address limits count: an IPv6 address by its /64, which one subscriber
    usually holds whole (a fresh address from it per guess would otherwise escape every limit)."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


def _serialise(session: Session, *, name: str, address: str | None) -> None:
    """Hold checks for the same name, then the same address, until commit. SQLite needs nothing:
    a write transaction (BEGIN IMMEDIATE) already holds its one writer's lock. Always name first,
    then address, so two checks never wait on each other in a circle."""
    if session.get_bind().dialect.name != "postgresql":
        return
    session.execute(select(func.pg_advisory_xact_lock(_NAME_LOCK, func.hashtext(name))))
    session.execute(select(func.pg_advisory_xact_lock(_ADDRESS_LOCK, func.hashtext(address or ""))))


def _count(session: Session, since: datetime, *conditions: ColumnElement[bool]) -> int:
    query = select(func.count()).select_from(SignInAttempt).where(SignInAttempt.at >= since, *conditions)
    return int(session.scalar(query) or 0)


def _too_many(what: str, window: timedelta) -> TooMany:
    wait = int(window.total_seconds())
    return TooMany(f"too many {what}: try again in {wait // 60} minutes", retry_after=wait)


def _refuse_if_throttled(
    session: Session,
    *,
    name: str,
    address: str | None,
    device: str | None,
    purpose: str,
    sign_ins_per_address: int,
) -> None:
    now = utcnow()
    failed = SignInAttempt.outcome != "ok"
    by_name = (failed, SignInAttempt.name == name)
    # An unknown address (not an IP: a test client, a socket) is one address of its own.
    from_here = SignInAttempt.address.is_(None) if address is None else SignInAttempt.address == address
    if device is not None:
        limits = [(WINDOW, MAX_FAILURES_PER_DEVICE, "from this browser", SignInAttempt.device == device)]
    else:
        untrusted = SignInAttempt.device.is_(None)
        limits = [
            (WINDOW, MAX_FAILURES_PER_NAME_AND_ADDRESS, "from this address", untrusted & from_here),
            (NAME_WINDOW, MAX_FAILURES_PER_NAME, "from anywhere", untrusted),
        ]
    for window, limit, where, condition in limits:
        if _count(session, now - window, *by_name, condition) >= limit:
            raise _too_many(f"wrong passwords for '{name}' {where}", window)
    if device is not None:
        # A browser that signed in as `name` before has its own limit (above): strangers sharing
        # its address (an office, a carrier's NAT) do not lock it out (OWASP's device cookies).
        return
    if _count(session, now - WINDOW, failed, from_here) >= MAX_FAILURES_PER_ADDRESS:
        raise _too_many("wrong passwords from this address", WINDOW)
    signed_in = (SignInAttempt.outcome == "ok", SignInAttempt.purpose == "sign_in")
    if purpose == "sign_in" and _count(session, now - WINDOW, from_here, *signed_in) >= sign_ins_per_address:
        raise _too_many("sign-ins from this address", WINDOW)


def begin(
    session: Session,
    *,
    name: str,
    address: str | None,
    device: str | None,
    purpose: str,
    sign_ins_per_address: int,
) -> Check:
    """Part of the caller's unit of work. Let one check of `name`'s password through, or TooMany
    (nothing stored)."""
    _serialise(session, name=name, address=address)
    _refuse_if_throttled(
        session,
        name=name,
        address=address,
        device=device,
        purpose=purpose,
        sign_ins_per_address=sign_ins_per_address,
    )
    now = utcnow()
    # What no window counts any more goes, for this name and address (both indexed): the table
    # holds about an hour of checks.
    session.execute(
        delete(SignInAttempt).where(
            SignInAttempt.at < now - NAME_WINDOW,
            (SignInAttempt.name == name) | (SignInAttempt.address == address),
        )
    )
    user = service.user_named(session, name=name)
    attempt = SignInAttempt(
        name=name, address=address, device=device, purpose=purpose, outcome="pending", at=now
    )
    session.add(attempt)
    session.flush()
    stored = user.password_hash if user is not None else None
    return Check(
        attempt_id=attempt.id,
        user_id=user.id if user is not None else None,
        password_hash=stored or passwords.DUMMY_HASH,
        usable=user is not None and stored is not None and not user.disabled,
    )


def _still_as_checked(session: Session, check: Check) -> bool:
    """Whether the person checked still has the password verified and is still active; on
    PostgreSQL their row is held until commit, so a change waits for this outcome."""
    user = session.scalar(select(User).where(User.id == check.user_id).with_for_update(key_share=True))
    return user is not None and user.password_hash == check.password_hash and not user.disabled


def checked_password(
    sessions: Callable[[], Session],
    *,
    name: str,
    password: str,
    address: str | None,
    device: str | None,
    purpose: str,
    sign_ins_per_address: int,
) -> int | None:
    """The id of the active person `name` if `password` is theirs, else None (the failure is
    stored and audited); TooMany when the throttle holds this check back. `sessions` makes write
    sessions: two short ones, with argon2 run between them, outside both."""
    # The attempt stores the name as typed, and PostgreSQL stores no NUL: one that has it (nobody
    # does: names.NAME_PATTERN) is counted and refused under a stand-in like any unknown name.
    name = name.replace("\x00", "\ufffd")
    with sessions() as session:
        check = begin(
            session,
            name=name,
            address=counted_address(address),
            device=device,
            purpose=purpose,
            sign_ins_per_address=sign_ins_per_address,
        )
        session.commit()
    verified = passwords.verify(check.password_hash, password) and check.usable
    rehashed = (
        passwords.hash_password(password)
        if verified and passwords.needs_rehash(check.password_hash)
        else None
    )
    with sessions() as session:
        # Read again: a password change, reset or disabling that ended while argon2 ran must not
        # be undone by a check of the password it replaced.
        ok = verified and _still_as_checked(session, check)
        session.execute(
            update(SignInAttempt)
            .where(SignInAttempt.id == check.attempt_id)
            .values(outcome="ok" if ok else "failed")
        )
        if ok and rehashed is not None:
            # Only over the hash just verified, never over a new password set meanwhile.
            session.execute(
                update(User)
                .where(User.id == check.user_id, User.password_hash == check.password_hash)
                .values(password_hash=rehashed)
            )
        if not ok:
            audit.record(
                session, kind=FAILED_KIND[purpose], user_id=check.user_id, address=address, name=name
            )
        session.commit()
    return check.user_id if ok else None

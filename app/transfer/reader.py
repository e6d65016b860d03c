"""Reading an export file for import as a stream, a row at a time, from a file on disk.

A whole file parsed at once costs many times its size in memory (a 5 MB file of bad rows once
grew the server by 800 MB and answered with 213 MB of problems). Here the top-level object is
walked with the standard JSON scanner a value at a time and each row is validated on its own by
its pydantic model, so memory stays near one row plus a few bytes a row for the checks across
rows (unique attempt ids and states, logs that name an attempt of the file). A refusal lists the
first MAX_PROBLEMS problems and counts the rest.
"""

import codecs
import hashlib
import itertools
import json
import re
import time
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.exceptions import InvalidFile
from app.practice.preferences import PracticeSettings
from app.transfer.schemas import (
    MAX_ROWS,
    AttemptDoc,
    ExportDoc,
    InterviewDoc,
    ReviewLogDoc,
    ReviewStateDoc,
)

MAX_PROBLEMS = 50
# Far more than any row an export writes (an answer holds at most 20,000 characters).
MAX_VALUE_CHARS = 1024 * 1024
CHUNK_BYTES = 64 * 1024
# How often, in rows, a pass over the file lets other threads run, and for how long.
YIELD_EVERY_ROWS = 20
YIELD_SECONDS = 0.0002
ROWS: dict[str, type[BaseModel]] = {
    "attempts": AttemptDoc,
    "review_states": ReviewStateDoc,
    "review_logs": ReviewLogDoc,
    # Checked like every row, so a broken file stores nothing; the merge reads past them.
    "interviews": InterviewDoc,
}
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
Row = TypeVar("Row", bound=BaseModel)


class _Unreadable(Exception):
    """The file cannot be read on from here; `problem` says why."""

    def __init__(self, message: str, kind: str = "json_invalid") -> None:
        super().__init__(message)
        self.problem = {"type": kind, "loc": [], "msg": message}


class _Text:
    """The file as text from byte offset `start`, decoded a chunk at a time."""

    def __init__(self, file: IO[bytes], *, start: int = 0, digest: Any = None) -> None:
        file.seek(start)
        self.file = file
        self.digest = digest
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0
        self.start = start  # the byte offset of text[0]
        self.ended = False

    def _more(self) -> bool:
        if self.ended:
            return False
        chunk = self.file.read(CHUNK_BYTES)
        if self.digest is not None:
            self.digest.update(chunk)
        self.ended = not chunk
        try:
            decoded = self.decoder.decode(chunk, final=self.ended)
        except UnicodeDecodeError:
            raise _Unreadable("The file is not UTF-8 text.") from None
        self.start += len(self.text[: self.pos].encode())
        self.text = self.text[self.pos :] + decoded
        self.pos = 0
        return True

    def offset(self) -> int:
        return self.start + len(self.text[: self.pos].encode())

    def peek(self) -> str:
        """The next character that is not white space, not consumed ("" at the end of the file)."""
        while True:
            match = _SPACE.match(self.text, self.pos)
            self.pos = match.end() if match else self.pos
            if self.pos < len(self.text) or not self._more():
                return self.text[self.pos : self.pos + 1]

    def expect(self, chars: str) -> str:
        char = self.peek()
        if not char or char not in chars:
            raise _Unreadable(f"The file is not JSON: expected {' or '.join(chars)} at byte {self.offset()}.")
        self.pos += 1
        return char

    def value(self) -> tuple[Any, str]:
        """The JSON value here, parsed, and its text."""
        self.peek()
        while True:
            try:
                parsed, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                end = -1
            except RecursionError:
                raise _Unreadable(
                    f"The file nests values too deeply at byte {self.offset()}.", "value_error"
                ) from None
            # A value that reaches the end of what was read may go on in the next chunk.
            if end != -1 and (end < len(self.text) or self.ended):
                raw = self.text[self.pos : end]
                self.pos = end
                return parsed, raw
            if len(self.text) - self.pos > MAX_VALUE_CHARS:
                raise _Unreadable(
                    f"The value at byte {self.offset()} is larger than any export holds.", "value_error"
                )
            if not self._more():
                raise _Unreadable(f"The file is not JSON: what starts at byte {self.offset()} is no value.")


def _members(text: _Text) -> Iterator[tuple[str, bool]]:
    """The keys of the file's object, each with whether its value is a list; the caller reads
    the value before asking for the next key."""
    first = text.peek()
    if not first:
        raise _Unreadable("The file is empty.")
    if first != "{":
        text.value()  # not JSON at all is the first thing to say
        raise _Unreadable("Input should be an object", kind="model_type")
    text.pos += 1
    if text.peek() == "}":
        text.pos += 1
    else:
        while True:
            key, _raw = text.value()
            if not isinstance(key, str):
                raise _Unreadable(f"The file is not JSON: a key must be a string (byte {text.offset()}).")
            text.expect(":")
            yield key, text.peek() == "["
            if text.expect(",}") == "}":
                break
    if text.peek():
        raise _Unreadable(f"The file is not JSON: something follows its end at byte {text.offset()}.")


def _elements(text: _Text) -> Iterator[str]:
    """The text of each value of the list that starts here."""
    text.expect("[")
    if text.peek() == "]":
        text.pos += 1
        return
    for count in itertools.count(1):
        yield text.value()[1]
        if text.expect(",]") == "]":
            return
        if count % YIELD_EVERY_ROWS == 0:
            let_others_run()


def let_others_run() -> None:
    """Hand the interpreter over for a moment. An import's passes over its rows hold it for
    seconds: without this, each step of another person's request waits out the interpreter's
    5 ms switch interval behind them (bench/import_wait.py)."""
    time.sleep(YIELD_SECONDS)


class _Problems:
    def __init__(self) -> None:
        self.listed: list[dict[str, Any]] = []
        self.more = 0

    def add(self, loc: list[Any], *, msg: str, kind: str = "value_error") -> None:
        if len(self.listed) < MAX_PROBLEMS:
            self.listed.append({"type": kind, "loc": loc, "msg": msg})
        else:
            self.more += 1

    def add_errors(self, error: ValidationError, where: list[Any]) -> None:
        for e in error.errors(include_url=False, include_context=False, include_input=False):
            self.add([*where, *e["loc"]], msg=e["msg"], kind=e["type"])


@dataclass(frozen=True)
class ImportFile:
    """A validated export file: where each of its lists starts, read again row by row to merge."""

    file: IO[bytes]
    version: int
    settings: PracticeSettings
    starts: dict[str, int]
    digest: str
    # How many values each list holds.
    lengths: dict[str, int] = field(default_factory=dict)

    def _rows(self, name: str, model: type[Row]) -> Iterator[Row]:
        if name in self.starts:
            for raw in _elements(_Text(self.file, start=self.starts[name])):
                yield model.model_validate_json(raw)

    def attempts(self) -> Iterator[AttemptDoc]:
        return self._rows("attempts", AttemptDoc)

    def review_states(self) -> Iterator[ReviewStateDoc]:
        return self._rows("review_states", ReviewStateDoc)

    def review_logs(self) -> Iterator[ReviewLogDoc]:
        return self._rows("review_logs", ReviewLogDoc)

    def stored_rows(self) -> int:
        """The rows of the file a merge may store: its attempts, review logs and review states
        (interviews are read past)."""
        return sum(self.lengths.get(name, 0) for name in ("attempts", "review_logs", "review_states"))


def read(file: IO[bytes]) -> ImportFile:
    """The file, checked whole, or InvalidFile with what is wrong (the first MAX_PROBLEMS)."""
    problems = _Problems()
    digest = hashlib.sha256()
    try:
        header, starts, lengths = _outline(_Text(file, digest=digest))
    except _Unreadable as error:
        raise InvalidFile([error.problem]) from None
    doc: ExportDoc | None = None
    try:
        # The lists stand in empty: the top level is checked by the model that defines it.
        doc = ExportDoc.model_validate_json(
            "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in header.items()) + "}"
        )
    except ValidationError as error:
        problems.add_errors(error, [])
    version = doc.version if doc else _version(header.get("version"))
    try:
        _check_rows(file, starts=starts, lengths=lengths, version=version, problems=problems)
    except _Unreadable as error:
        problems.add(**_unpack(error.problem))
    if doc is None or problems.listed:
        raise InvalidFile(problems.listed, problems.more)
    return ImportFile(file, doc.version, doc.settings, starts, digest.hexdigest(), lengths)


def _unpack(problem: dict[str, Any]) -> dict[str, Any]:
    return {"loc": problem["loc"], "msg": problem["msg"], "kind": problem["type"]}


def _version(raw: str | None) -> int | None:
    try:
        value = json.loads(raw or "2")
    except ValueError:
        return None
    return value if value in (1, 2) and isinstance(value, int) else None


def _outline(text: _Text) -> tuple[dict[str, str], dict[str, int], dict[str, int]]:
    """The file's top-level values but its lists (those stand as "[]"), where each list of rows
    starts, and how many values it holds. Reads the whole file (the digest sees all of it)."""
    header: dict[str, str] = {}
    starts: dict[str, int] = {}
    lengths: dict[str, int] = {}
    for key, is_list in _members(text):
        if not is_list:
            raw = text.value()[1]
            # A key the format lacks is refused by the model all the same; its value need not be
            # kept (a file of many large unknown values would otherwise be held whole).
            header[key] = raw if key in ExportDoc.model_fields else "null"
            continue
        header[key] = "[]"
        start = text.offset()
        count = sum(1 for _ in _elements(text))
        if key in ROWS:
            starts[key], lengths[key] = start, count
    return header, starts, lengths


def _check_rows(
    file: IO[bytes],
    *,
    starts: dict[str, int],
    lengths: dict[str, int],
    version: int | None,
    problems: _Problems,
) -> None:
    """Each row against its model, then the rules across rows."""
    ids = array("q")
    references = array("q")  # (index, attempt id) of each log that names an attempt, flattened
    state_keys = array("q")
    for name, model in ROWS.items():
        if name not in starts:
            continue
        if lengths[name] > MAX_ROWS:
            problems.add(
                [name], msg=f"List should have at most {MAX_ROWS} items, not {lengths[name]}", kind="too_long"
            )
            continue
        for index, raw in enumerate(_elements(_Text(file, start=starts[name]))):
            try:
                row = model.model_validate_json(raw)
            except ValidationError as error:
                problems.add_errors(error, [name, index])
                continue
            if isinstance(row, AttemptDoc):
                ids.append(row.id)
                if version is not None and any(isinstance(p, int) != (version == 1) for p in row.points):
                    form = "positions" if version == 1 else "ids"
                    problems.add([name, index, "points"], msg=f"must be {form} in a version-{version} file")
            elif isinstance(row, ReviewLogDoc) and row.attempt_id is not None:
                if abs(row.attempt_id) < 2**63:
                    references.extend((index, row.attempt_id))
                else:  # no attempt id is this large
                    problems.add(
                        [name, index, "attempt_id"], msg=f"{row.attempt_id} is not an attempt in the file"
                    )
            elif isinstance(row, ReviewStateDoc):
                key = hashlib.blake2b(f"{row.card_id}\0{row.tier}".encode(), digest_size=8).digest()
                state_keys.append(int.from_bytes(key, "big", signed=True))
    known = sorted(ids)
    if any(a == b for a, b in pairwise(known)):
        problems.add(["attempts"], msg="attempt ids must be unique within the file")
    for index, attempt_id in zip(references[::2], references[1::2], strict=True):
        at = bisect_left(known, attempt_id)
        if at == len(known) or known[at] != attempt_id:
            problems.add(
                ["review_logs", index, "attempt_id"], msg=f"{attempt_id} is not an attempt in the file"
            )
    if any(a == b for a, b in pairwise(sorted(state_keys))):
        problems.add(
            ["review_states"], msg="review_states has more than one state for the same card and tier"
        )

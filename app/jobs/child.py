"""How a worker's child process answers its parent (app/demos/runner.py has the protocol): ready
once, then a pong for each ping and one reply for each job, until it is asked to stop."""

import os
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import Any

Message = tuple[Any, ...]


def answer(conn: Connection, *, ready: Mapping[str, Any], run: Callable[[Message], Message]) -> None:
    """Send `ready`, then answer messages: `run` gets a job's payload (what follows "job") and
    returns the reply, a result or an error."""
    conn.send(("ready", {"pid": os.getpid(), **ready}))
    while True:
        message = conn.recv()
        if message[0] == "stop":
            return
        if message[0] == "ping":
            conn.send(("pong", os.getpid()))
            continue
        conn.send(run(message[1:]))

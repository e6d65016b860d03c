"""How tiercards writes its log lines: one JSON object a line in production (for a log collector),
readable text in development; either way each line names the request it was written for.

The request id lives in a context variable: set once per request by the web layer, it follows the
request into the threads its database work runs on, so every line written meanwhile carries it.
"""

import json
import logging
import logging.config
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
# What an access line adds to the usual fields (app/web/request_log.py passes them as `extra`).
ACCESS_FIELDS = ("method", "route", "status", "duration_ms")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": REQUEST_ID.get(),
        }
        line.update({name: getattr(record, name) for name in ACCESS_FIELDS if hasattr(record, name)})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class ReadableFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(request)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        request_id = REQUEST_ID.get()
        record.request = f" [request {request_id}]" if request_id else ""
        return super().format(record)


def stderr_handler() -> logging.Handler:
    """Where every line goes. Python's warnings (a library's deprecation notice at import) go
    there too, as log lines, instead of as raw text between them."""
    logging.captureWarnings(True)
    return logging.StreamHandler(sys.stderr)


def logging_config(production: bool) -> dict[str, Any]:
    """A `logging.config.dictConfig` for the web processes, uvicorn's own loggers included (their
    access log is off: app/web/request_log.py writes one line a request, with the route and id).
    Production logs from INFO, access lines included; development only warnings and errors."""
    level = "INFO" if production else "WARNING"
    formatter = JsonFormatter if production else ReadableFormatter
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"tiercards": {"()": f"{__name__}.{formatter.__name__}"}},
        "handlers": {"stderr": {"()": f"{__name__}.{stderr_handler.__name__}", "formatter": "tiercards"}},
        "root": {"handlers": ["stderr"], "level": level},
        "loggers": {
            "uvicorn": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.error": {"handlers": [], "propagate": True},
            "uvicorn.access": {"handlers": [], "propagate": False},
        },
    }


def configure(production: bool) -> None:
    logging.config.dictConfig(logging_config(production))

"""`tiercards speech transcribe`: a recording transcribed here, in a speech process under the
worker's limits, and how it was said."""

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from app.settings import get_settings

speech_cli = typer.Typer(help="Answer aloud: transcribe a recorded answer.", no_args_is_help=True)


def recording_document(result: dict[str, Any]) -> dict[str, Any]:
    """The fields `GET /api/recordings/{id}` answers, from the speech process's result; no stored
    recording here, so no id. Beside the words said, the delivery's own figures (its word count
    and length are the words' and duration_s)."""
    delivery = {key: value for key, value in result["delivery"].items() if key not in ("words", "seconds")}
    return {
        "id": None,
        "status": "done",
        "transcript": result["transcript"],
        "duration_s": result["duration_s"],
        "words": result["words"],
        **delivery,
        "model": result["model"],
        "real_time_factor": result["real_time_factor"],
        "error": None,
    }


def delivery_text(doc: dict[str, Any]) -> str:
    """The transcript, then how it was said, one figure a line."""
    low, high = doc["pace_band"]
    pauses = (
        ", ".join(f"{p['seconds']:.1f} s after “{p['after']}”, before “{p['before']}”" for p in doc["pauses"])
        or "none"
    )
    hedges = ", ".join(f"“{h['phrase']}”" for h in doc["hedges"])
    fillers = ", ".join(f"{word} x{count}" for word, count in doc["fillers"].items()) or "none heard"
    rows = [
        ("duration", f"{doc['duration_s']:.1f} s (target ~{doc['target_seconds']} s)"),
        ("pace", f"{doc['words_per_minute']:.0f} words a minute, {doc['pace']} (usual {low}-{high})"),
        ("pauses over 2 s", pauses),
        ("fillers", f"{fillers}; unclear sounds {doc['unclear_sounds']}"),
        (
            "hedges",
            f"{len(doc['hedges'])} ({doc['hedges_per_minute']} a minute): {hedges}" if hedges else "none",
        ),
        ("most used", ", ".join(f"{word} x{count}" for word, count in doc["most_used"]) or "none"),
        ("terms used", ", ".join(doc["terms_used"]) or "none"),
        ("terms missed", ", ".join(doc["terms_missed"]) or "none"),
        ("model", f"{doc['model']}, real-time factor {doc['real_time_factor']:.2f}"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join([doc["transcript"], "", *(f"{name:<{width}}  {value}" for name, value in rows)])


@speech_cli.command("transcribe")
def transcribe(
    file: Annotated[Path, typer.Argument(help="The recording: Opus in WebM or Ogg, WAV, FLAC, MP3 or AAC.")],
    card: Annotated[
        str | None, typer.Option("--card", help="Prime the model with this card's terms; its target time.")
    ] = None,
    tier: Annotated[str, typer.Option(help="The depth answered at: junior answers the basics.")] = "middle",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the fields GET /api/recordings/{id} answers.")
    ] = False,
) -> None:
    """Transcribe one recording here (no queue, no worker) and say how it was said."""
    from app.content.catalogue import load
    from app.content.tiers import default_answer_kind, parse_tier
    from app.jobs.child_process import ChildError
    from app.speech.child import CHILD, Job, time_limit_seconds
    from app.speech.delivery import TARGET_WITHOUT_CARD_SECONDS
    from app.speech.recogniser import card_terms
    from app.worker.runner import ChildRunner

    settings = get_settings()
    depth = parse_tier(tier)
    if depth is None:
        typer.echo(f"error: no tier {tier!r}", err=True)
        raise typer.Exit(code=2)
    terms: tuple[str, ...] = ()
    target = TARGET_WITHOUT_CARD_SECONDS
    if card is not None:
        found = load(settings.content_dir).cards.get(card)
        if found is None:
            typer.echo(f"error: no card {card!r} in {settings.content_dir}", err=True)
            raise typer.Exit(code=2)
        terms, target = card_terms(found), found.time_budget(default_answer_kind(depth))
    try:
        data = file.read_bytes()
    except OSError as error:
        typer.echo(f"error: {file}: {error.strerror}", err=True)
        raise typer.Exit(code=1) from error
    if len(data) > settings.max_recording_bytes:
        typer.echo(
            f"The recording is {len(data)} bytes, more than a {settings.max_recording_seconds} s "
            f"recording takes in any format ({settings.max_recording_bytes} as 16-bit 48 kHz stereo WAV).",
            err=True,
        )
        raise typer.Exit(code=1)
    job = Job(audio=data, terms=terms, target_seconds=target, max_seconds=settings.max_recording_seconds)
    try:
        with ChildRunner(CHILD, settings.demo_memory_limit_mb, options=CHILD.options(settings)) as runner:
            result = runner.run(job, timeout_s=time_limit_seconds(settings.max_recording_seconds))
    except ChildError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(code=1) from error
    if "refused" in result:
        typer.echo(result["refused"], err=True)
        raise typer.Exit(code=1)
    doc = recording_document(result)
    typer.echo(json.dumps(doc, indent=2) if as_json else delivery_text(doc))

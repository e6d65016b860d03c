"""Real-time factor of the speech model on this CPU for a ~20 s and a ~50 s answer, against the time
to decode the same audio alone, in the same run.

    .venv/bin/python -m bench.speech_rtf [--runs 3] [--voice rms] [--option NAME=VALUE ...]

The answers are the owner card's basics and solid answers, spoken by flite and sent as Ogg Opus
(what a browser records). The model is loaded and warmed first, as a worker keeps it. Printed per
answer: decode alone (the baseline), decode + transcribe, their ratio, and the real-time factor
(decode + transcribe over the audio's length). Exit status 1 if a transcript would take longer than
TARGET x the answer's length after stopping.
"""

import argparse
import tempfile
import time
from pathlib import Path

from app import PROJECT_ROOT
from app.content.parser import parse_card
from app.content.render import to_plain
from app.speech.decode import decode_recording
from app.speech.recogniser import card_terms, load
from bench._decode_options import add_option_flag, decode_options
from bench._timing import timed
from bench._verdict import run, verdict
from tests.factories import OWNER_CARD
from tests.speech.clips import encode, speak

MAX_SECONDS = 180
# The transcript should appear within a quarter of the answer's length after stopping.
TARGET = 0.25


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--voice", default="rms")
    add_option_flag(parser)
    args = parser.parse_args()
    options = decode_options(args.option)
    start = time.perf_counter()
    model = load(None)
    print(
        f"model: {model.folder.name}; verified, loaded and warmed in {time.perf_counter() - start:.2f} s; "
        f"decoding options {options or 'as shipped'}"
    )
    card = parse_card(PROJECT_ROOT / "content" / f"{OWNER_CARD}.md")
    terms = card_terms(card)
    folder = Path(tempfile.mkdtemp(prefix="speech-rtf-"))
    worst = 0.0
    for label, text in (("basics", card.basics), ("solid", card.solid)):
        wav = speak(" ".join(to_plain(text.markdown).split()), voice=args.voice, folder=folder)
        data = encode(wav, container="ogg")
        seconds = decode_recording(data, max_seconds=MAX_SECONDS).seconds

        def both(data: bytes = data) -> None:
            model.transcribe(
                decode_recording(data, max_seconds=MAX_SECONDS).samples, terms=terms, options=options
            )

        baseline = timed(lambda data=data: decode_recording(data, max_seconds=MAX_SECONDS), args.runs)
        total = timed(both, args.runs)
        factor = total / seconds
        worst = max(worst, factor)
        print(
            f"{label} answer, {seconds:.1f} s of Ogg Opus: decode alone {baseline:.3f} s (baseline), "
            f"decode + transcribe {total:.2f} s, ratio {total / baseline:.1f}, real-time factor {factor:.3f} "
            f"(target {TARGET})"
        )
        if options:
            # The decoding as shipped, timed in the same run: on a shared machine only this
            # ratio compares the options fairly.
            shipped = timed(
                lambda data=data: model.transcribe(
                    decode_recording(data, max_seconds=MAX_SECONDS).samples, terms=terms
                ),
                args.runs,
            )
            print(
                f"  as shipped {shipped:.2f} s (real-time factor {shipped / seconds:.3f}); "
                f"with the options {total / shipped:.2f}x that"
            )
    verdict(worst <= TARGET)


if __name__ == "__main__":
    run(main)

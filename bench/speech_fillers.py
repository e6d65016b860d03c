"""Fillers heard: on clips of deck sentences with an "um", "uh", "erm" or "hmm" said alone between
short silences (a hesitation), how many clips have a filler counted; on their clean twins, the
baseline from the same run, with a word of the sentence said alone between the same silences
instead, how many fillers are counted that nobody said. Then the same sentences with "um," and
"uh," said inline, as flite and espeak-ng run them into the words, and said as written.

    .venv/bin/python -m bench.speech_fillers

Per voice, then pooled over the voices the rules were looked at on (FILLERS_TUNED) and over the
held-out ones (FILLERS_HELD_OUT), whose figures the page states. Exit status 1 if, on the held-out
voices, fewer than 7 in 10 filler clips have a filler counted or more than 1 false filler is counted
per 20 clean clips.
"""

import tempfile
from pathlib import Path

from app.speech.recogniser import load
from bench._verdict import run, verdict
from tests.speech.evaluation import (
    FILLERS_HELD_OUT,
    FILLERS_TUNED,
    FillerCounts,
    filler_deck,
    hesitations,
    inline_fillers,
)


def main() -> None:
    model = load(None)
    folder = Path(tempfile.mkdtemp(prefix="speech-fillers-"))
    chosen = filler_deck()
    sentences = [sentence for sentence, _ in chosen]
    totals = {"tuned": FillerCounts(), "held out": FillerCounts()}
    for group, voices in (("tuned", FILLERS_TUNED), ("held out", FILLERS_HELD_OUT)):
        for voice in voices:
            counts = hesitations(model, voice, sentences, folder)
            totals[group].add(counts)
            print(
                f"{' '.join(voice)} ({group}): hesitations found {counts.found}/{counts.clips}, "
                f"false fillers {counts.false} on {counts.clean} clean clips",
                flush=True,
            )
    for group, counts in totals.items():
        print(
            f"{group}: found {counts.found}/{counts.clips} = {counts.found / counts.clips:.2f}, "
            f"false {counts.false} per {counts.clean} clean = {20 * counts.false / counts.clean:.2f} per 20"
        )
    for group, voices in (("tuned", FILLERS_TUNED), ("held out", FILLERS_HELD_OUT)):
        inline = inline_fillers(model, voices, chosen, folder)
        print(
            f"inline fillers, {group}: {inline.counted}/{inline.said} counted, "
            f"false {inline.false} on {inline.clean} clean sentences",
            flush=True,
        )
    held = totals["held out"]
    verdict(held.found >= 0.7 * held.clips, f"held-out hesitations found: {held.found}/{held.clips}")
    verdict(
        held.false * 20 <= held.clean, f"held-out false fillers: {held.false} per {held.clean} clean clips"
    )


if __name__ == "__main__":
    run(main)

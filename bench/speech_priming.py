"""Which of the card's terms to prime the speech model with, chosen by measurement: the word error
rate of each priming choice, per voice and per card, against no priming in the same run.

    .venv/bin/python -m bench.speech_priming [--per-card 2]

The choices are app/speech/recogniser.py's PRIMING. The choice is made on flite's voices (TUNED);
espeak-ng's (HELD_OUT) are only measured, so their figures say how the choice carries to voices it
was not made on. Per card, the choice that is best on the tuned voices is named; a card on which the
shipped choice is worse than no priming is listed. Exit status 1 if the shipped choice is more than
FILLER_PRICE worse than the best on the tuned voices, or worse than no priming on the held-out ones.
"""

import argparse
import tempfile
from pathlib import Path

from app.speech.decode import decode_recording
from app.speech.recogniser import PRIMED_WITH, PRIMING, load
from bench._verdict import run, verdict
from tests.speech.evaluation import HELD_OUT, TUNED, deck_by_card, pooled, said

MAX_SECONDS = 180
# The word error rate the shipped choice may give up to the best on the tuned voices: the fillers
# in its prompt cost a little, and buy the "um"s run into the words (bench/speech_fillers.py).
FILLER_PRICE = 0.015
Pairs = list[tuple[str, str]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-card", type=int, default=2)
    args = parser.parse_args()
    model = load(None)
    folder = Path(tempfile.mkdtemp(prefix="speech-priming-"))
    cards = deck_by_card(args.per_card)
    # (voice, card, choice) -> (said, heard) pairs
    heard: dict[tuple[tuple[str, str], str, str], Pairs] = {}
    for voice in [*TUNED, *HELD_OUT]:
        for card, pairs in cards.items():
            for sentence, terms in pairs:
                samples = decode_recording(
                    said(*voice, sentence, folder).read_bytes(), max_seconds=MAX_SECONDS
                ).samples
                for choice in PRIMING:
                    text = model.transcribe(samples, terms=terms, priming=choice).text
                    heard.setdefault((voice, card, choice), []).append((sentence, text))
        print(
            " ".join(voice),
            *(
                f"{choice} {pooled([p for (v, _, c), ps in heard.items() if v == voice and c == choice for p in ps]):.3f}"
                for choice in PRIMING
            ),
            flush=True,
        )

    def wer(voices: list[tuple[str, str]], choice: str, card: str | None = None) -> float:
        return pooled(
            [
                p
                for (v, c, ch), ps in heard.items()
                if v in voices and ch == choice and card in (None, c)
                for p in ps
            ]
        )

    baseline = "none"
    for name, voices in (("tuned (flite)", TUNED), ("held out (espeak-ng)", HELD_OUT)):
        figures = {choice: wer(voices, choice) for choice in PRIMING}
        print(
            f"{name}: "
            + ", ".join(
                f"{choice} {value:.3f} (ratio {value / figures[baseline]:.2f})"
                for choice, value in figures.items()
            )
        )
    print("per card, tuned voices (best choice; the shipped choice against none):")
    for card in cards:
        figures = {choice: wer(TUNED, choice, card) for choice in PRIMING}
        best = min(figures, key=figures.__getitem__)
        flag = "  worse than none" if figures[PRIMED_WITH] > figures[baseline] else ""
        print(f"  {card}: best {best}; " + ", ".join(f"{c} {v:.3f}" for c, v in figures.items()) + flag)
    tuned = {choice: wer(TUNED, choice) for choice in PRIMING}
    verdict(
        tuned[PRIMED_WITH] <= min(tuned.values()) + FILLER_PRICE,
        f"the shipped priming ({PRIMED_WITH}) is within {FILLER_PRICE} of the best on the tuned voices: "
        f"{tuned[PRIMED_WITH]:.3f} against {min(tuned.values()):.3f}",
    )
    held = {choice: wer(HELD_OUT, choice) for choice in PRIMING}
    verdict(
        held[PRIMED_WITH] <= held[baseline],
        f"on the held-out voices it is no worse than none: {held[PRIMED_WITH]:.3f} against {held[baseline]:.3f}",
    )


if __name__ == "__main__":
    run(main)

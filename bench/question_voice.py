"""A mock interview's question heard, through the whole path a person uses, with a warm
`tiercards worker`:

- time to first sound: POST /api/interviews (the question asked, its sound queued) → the worker's
  voice child says it with flite → GET its `audio_url` has the sound; each question said for the
  first time (nothing cached);
- end of answer to next question: POST the answer (checked, the follow-up chosen, its sound
  queued) → GET the next question's `audio_url` has the sound; each follow-up new too (an answer
  that misses every point, so the card's first point is asked in the interviewer's words).

    .venv/bin/python -m bench.question_voice [--runs 12] [--voices]

With --voices, first: how well each voice is understood, as the word error of the app's own
recogniser (primed with the card's terms) hearing the deck's questions said by each flite voice
and by espeak-ng, and each one's seconds to say a question; the baseline there is espeak-ng.

Baseline, measured in the same run: flite saying the same question in this process, the floor
any path to a first sound pays. Prints medians and the slowest, each as a ratio to the baseline.
Targets on this CPU: first sound within 1 s, and the next question heard within 1.5 s of the
answer (medians). Exit status 1 if either misses.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from app.jobs.queue import voice_lanes_for
from app.speech.accuracy import word_error_rate
from app.speech.decode import decode_recording
from app.speech.recogniser import card_terms, load
from app.speech.voice import Job, said, speak
from app.voices import VOICES
from bench._servers import client_with_worker
from bench._verdict import run, verdict
from tests.factories import DECK

FIRST_SOUND_S = 1.0
NEXT_QUESTION_S = 1.5
WARM_UP_S = 180.0
ANSWER = "I am not sure; I have not used it."


def _heard(client: TestClient, url: str | None, patience_s: float = 30.0) -> None:
    assert url, "the question came without a sound: no worker says questions"
    deadline = time.monotonic() + patience_s
    while True:
        response = client.get(url)
        if response.status_code == 200:
            assert response.content[:4] == b"RIFF", response.content[:16]
            return
        assert response.status_code == 503 and time.monotonic() < deadline, response.text
        time.sleep(0.01)


def _first_sound(client: TestClient, card_id: str) -> tuple[float, int]:
    started = time.perf_counter()
    response = client.post("/api/interviews", json={"cards": [card_id], "tier": "middle"})
    assert response.status_code == 201, response.text
    _heard(client, response.json()["question"]["audio_url"])
    return time.perf_counter() - started, int(response.json()["id"])


def _next_question(client: TestClient, session_id: int) -> float:
    started = time.perf_counter()
    response = client.post(f"/api/interviews/{session_id}/answers", json={"text": ANSWER, "seconds": 30})
    assert response.status_code == 200, response.text
    follow_up = response.json()["next"]
    assert follow_up is not None and follow_up["kind"] == "follow-up"
    _heard(client, follow_up["audio_url"])
    return time.perf_counter() - started


def _flite_alone(texts: list[str]) -> list[float]:
    spent = []
    for text in texts:
        started = time.perf_counter()
        speak(Job(text=said(text), voice="slt"))
        spent.append(time.perf_counter() - started)
    return spent


def _espeak(text: str) -> tuple[bytes, float]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "question.wav"
        started = time.perf_counter()
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(out), text], check=True, timeout=60)
        return out.read_bytes(), time.perf_counter() - started


def _voices(step: int) -> None:
    """Each voice's word error as the recogniser hears the deck's questions, and its seconds."""
    model = load(None)
    asked = [(card, said(entry)) for card in DECK.values() for entry in (card.title.markdown,)]
    asked += [(card, said(f.title.markdown)) for card in DECK.values() for f in card.follow_ups]
    asked = asked[::step]
    found: dict[str, tuple[float, float]] = {}
    for voice in [*VOICES, "espeak-ng"]:
        errors, seconds = [], []
        for card, words in asked:
            if voice == "espeak-ng":
                audio, spent = _espeak(words)
            else:
                result = speak(Job(text=words, voice=voice))
                audio, spent = result["audio"], result["seconds"]
            heard = model.transcribe(decode_recording(audio, max_seconds=60).samples, terms=card_terms(card))
            errors.append(word_error_rate(words, heard.text))
            seconds.append(spent)
        found[voice] = (statistics.mean(errors), statistics.median(seconds))
    baseline = found["espeak-ng"][0]
    print(f"each voice heard by the app's recogniser, {len(asked)} questions of the deck")
    for voice, (error, spent) in found.items():
        print(
            f"  {voice}: word error {error:.3f} ({error / baseline:.2f}x espeak-ng), {spent:.2f} s a question"
        )
    best = min(VOICES, key=lambda voice: found[voice][0])
    verdict(
        found["slt"][0] <= found[best][0] + 0.02,
        f"the default voice, slt, is understood as well as the best ({best})",
    )


def _line(name: str, values: list[float], baseline: float) -> str:
    median = statistics.median(values)
    return (
        f"  {name}: median {median:.2f} s ({median / baseline:.1f}x flite alone), slowest {max(values):.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--voices", action="store_true", help="first, how well each voice is understood")
    parser.add_argument("--every", type=int, default=4, help="with --voices, every Nth question of the deck")
    args = parser.parse_args()
    if args.voices:
        _voices(args.every)
    cards = [card for card in DECK.values() if card.level == "middle" and card.follow_ups][: args.runs]
    owner = "tf-data-prefetch-last"
    with client_with_worker("tiercards-bench-voice-", lane=voice_lanes_for(False)[0]) as client:
        # Warm: the worker reads its lanes once every child it runs has started.
        response = client.post("/api/interviews", json={"cards": [owner], "tier": "junior"})
        _heard(client, response.json()["question"]["audio_url"], patience_s=WARM_UP_S)
        first, nexts = [], []
        for card in cards:
            seconds, session_id = _first_sound(client, card.id)
            first.append(seconds)
            nexts.append(_next_question(client, session_id))
    baseline = statistics.median(_flite_alone([card.title.markdown for card in cards]))
    print(
        f"a mock interview's questions heard, warm worker, {len(first)} new questions, {len(nexts)} answers"
    )
    print(f"  baseline, flite saying a question in this process: median {baseline:.2f} s")
    print(_line("time to first sound (question never said before)", first, baseline))
    print(_line("end of answer to the next question heard", nexts, baseline))
    verdict(statistics.median(first) < FIRST_SOUND_S, f"time to first sound (median) < {FIRST_SOUND_S} s")
    verdict(
        statistics.median(nexts) < NEXT_QUESTION_S, f"answer to next question (median) < {NEXT_QUESTION_S} s"
    )


if __name__ == "__main__":
    run(main)

"""One flite clip of a deck sentence, transcribed by the bundled model primed with its card's terms.

Measured here (bench/speech_wer.py has the whole deck): this clip's word error rate is 0.056 primed
(one word in 18) and 0.111 unprimed, where "cache" is heard as "Cash"; the bound leaves room for
another word or so on a different CPU's arithmetic."""

from pathlib import Path

import pytest

from app import PROJECT_ROOT
from app.content.parser import parse_card
from app.speech.accuracy import word_error_rate
from app.speech.child import transcribe
from app.speech.decode import decode_recording
from app.speech.delivery import measure
from app.speech.recogniser import card_terms, load
from tests.speech.clips import WER_BOUND, encode, joined, sentences, speak, speak_espeak
from tests.speech.evaluation import deck_by_card

pytestmark = pytest.mark.engine_agnostic

# Not the owner's card: its sentences are the ones the term rules were looked at on.
CARD = "tf-data-cache-placement"


def test_a_spoken_deck_sentence_is_transcribed_within_the_measured_error(tmp_path: Path) -> None:
    card = parse_card(PROJECT_ROOT / "content" / f"{CARD}.md")
    sentence = next(s for s in sentences(card) if not any(ch.isdigit() for ch in s))
    clip = speak(sentence, voice="rms", folder=tmp_path)
    recording = decode_recording(clip.read_bytes(), max_seconds=180)
    transcript = load(None).transcribe(recording.samples, terms=card_terms(card))

    assert word_error_rate(sentence, transcript.text) <= WER_BOUND, transcript.text
    assert transcript.seconds == pytest.approx(recording.seconds, abs=0.05)
    starts = [word.start for word in transcript.words]
    assert starts == sorted(starts) and starts[0] >= 0 and transcript.words[-1].end <= recording.seconds + 0.1
    delivery = measure(
        transcript.words,
        seconds=transcript.seconds,
        terms=card_terms(card),
        target_seconds=card.timings.basics,
    )
    assert "cache" in delivery.terms_used
    assert delivery.words == len(transcript.words) > 10


def test_a_decode_that_runs_on_past_the_speech_leaves_no_marks_without_words(tmp_path: Path) -> None:
    """The owner's basics answer in flite's rms voice, sent as Ogg Opus and primed: the decoder runs
    on past the end of speech and writes " . . . ." (bench/speech_rtf.py); marks are no words said."""
    from app.content.render import to_plain
    from tests.factories import OWNER_CARD

    card = parse_card(PROJECT_ROOT / "content" / f"{OWNER_CARD}.md")
    said = " ".join(to_plain(card.basics.markdown).split())
    clip = encode(speak(said, voice="rms", folder=tmp_path), container="ogg")
    recording = decode_recording(clip, max_seconds=180)
    transcript = load(None).transcribe(recording.samples, terms=card_terms(card))

    assert all(any(ch.isalnum() for ch in word.text) for word in transcript.words), transcript.text
    assert not transcript.text.endswith(". ."), transcript.text


@pytest.mark.parametrize("engine", ["flite", "espeak-ng"])
def test_a_silence_in_mid_sentence_is_a_pause_where_the_audio_has_it(engine: str, tmp_path: Path) -> None:
    """Whisper stretches the word before a silence over much of it, so its timestamps show no pause;
    the voice heard in the audio does."""
    first, second = "The input pipeline and the training step", "overlap when prefetch goes last"
    if engine == "flite":
        said = [speak(first, voice="slt", folder=tmp_path), speak(second, voice="slt", folder=tmp_path)]
    else:
        said = [speak_espeak(t, voice="en-us", folder=tmp_path) for t in (first, second)]
    clip, [_, (start, end), _] = joined([0.5, said[0], 2.5, said[1], 0.5], folder=tmp_path)
    job = {"audio": clip.read_bytes(), "terms": [], "target_seconds": 20, "max_seconds": 180}
    pauses = transcribe(load(None), job)["delivery"]["pauses"]

    assert len(pauses) == 1, pauses
    assert pauses[0]["start"] == pytest.approx(start, abs=0.5)
    assert pauses[0]["end"] == pytest.approx(end, abs=0.5)
    assert pauses[0]["after"] == "step" and pauses[0]["before"].startswith("over")  # or "over lap"


def test_an_um_run_into_a_sentence_is_counted_and_the_sentence_without_it_counts_none(
    tmp_path: Path,
) -> None:
    card = parse_card(PROJECT_ROOT / "content" / f"{CARD}.md")
    sentence = next(s for s in sentences(card) if not any(ch.isdigit() for ch in s))
    words = sentence.split()
    with_um = " ".join([*words[: len(words) // 2], "um,", *words[len(words) // 2 :]])
    counted = []
    for said in (with_um, sentence):
        samples = decode_recording(
            speak(said, voice="rms", folder=tmp_path).read_bytes(), max_seconds=180
        ).samples
        transcript = load(None).transcribe(samples, terms=card_terms(card))
        delivery = measure(
            transcript.words,
            seconds=transcript.seconds,
            terms=(),
            target_seconds=card.timings.basics,
            sounds=transcript.sounds,
        )
        counted.append(dict(delivery.fillers).get("um", 0))
    assert counted == [1, 0]


@pytest.mark.parametrize("voice", ["en-us", "en-gb"])
def test_the_words_after_a_long_pause_are_kept(voice: str, tmp_path: Path) -> None:
    """Across a 2.5 s silence the decoder, primed with fillers, used to stop at the sentence before it."""
    card = parse_card(PROJECT_ROOT / "content" / "tf-function-retracing.md")
    sentence = deck_by_card(1)[card.id][0][0]
    words = sentence.split()
    halves = [" ".join(words[: len(words) // 2]), " ".join(words[len(words) // 2 :])]
    said = [speak_espeak(half, voice=voice, folder=tmp_path) for half in halves]
    clip, _ = joined([0.5, said[0], 2.5, said[1], 0.5], folder=tmp_path)
    samples = decode_recording(clip.read_bytes(), max_seconds=180).samples
    transcript = load(None).transcribe(samples, terms=())

    assert word_error_rate(halves[1], " ".join(transcript.text.split()[-len(halves[1].split()) :])) < 0.5, (
        transcript.text
    )

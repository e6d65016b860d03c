"""The interviewer's voice: a question's words as a person says them (code read out, marks left
unsaid), and flite saying one, heard back by the app's own recogniser."""

import pytest

from app.speech.accuracy import word_error_rate
from app.speech.decode import decode_recording
from app.speech.recogniser import card_terms, load
from app.speech.voice import MAX_CHARS, Job, said, speak
from app.voices import VOICES
from tests.factories import DECK, OWNER_CARD


@pytest.mark.parametrize(
    ("markdown", "words"),
    [
        (
            "Why does `tf.data.Dataset.prefetch(tf.data.AUTOTUNE)` go last in a pipeline?",
            "Why does prefetch autotune go last in a pipeline?",
        ),
        (
            "Does `map(num_parallel_calls=8)` add threads?",
            "Does map num parallel calls equals 8 add threads?",
        ),
        (
            "What does **deterministic** mean [here](https://example.com)?",
            "What does deterministic mean here?",
        ),
        ("<b>x</b> | y", "b x b y"),
        ("Is `tf.data.experimental.AUTOTUNE` still there?", "Is autotune still there?"),
    ],
)
def test_a_question_is_said_with_its_code_read_out_and_its_marks_left_unsaid(
    markdown: str, words: str
) -> None:
    assert said(markdown) == words


def test_a_question_said_is_cut_at_the_longest_a_question_may_be() -> None:
    assert len(said("word " * 1000)) == MAX_CHARS


@pytest.mark.parametrize("voice", sorted(VOICES))
def test_flite_says_a_question_and_the_recogniser_hears_its_words(voice: str) -> None:
    card = DECK[OWNER_CARD]
    words = said(card.follow_ups[1].title.markdown)  # "How do you prove whether a slow step is…"
    result = speak(Job(text=words, voice=voice))
    audio = decode_recording(result["audio"], max_seconds=60)
    assert 2.0 < audio.seconds < 12.0
    heard = load(None).transcribe(audio.samples, terms=card_terms(card)).text
    # Said by a machine and heard by the tiny model: nearly every word comes back.
    assert word_error_rate(words, heard) <= 0.25, heard

"""How an answer was said, from the words Whisper heard and when: pace, pauses, fillers, the words
used most and the card's terms that were said."""

import pytest

from app.speech.delivery import (
    FILLERS,
    LONG_PAUSE_SECONDS,
    MAX_WORDS_PER_MINUTE,
    MIN_PACE_SECONDS,
    PACE_BAND,
    TOO_SHORT,
    Sound,
    Word,
    measure,
)

pytestmark = pytest.mark.engine_agnostic


def spoken(text: str, *, start: float = 0.0, seconds_per_word: float = 0.4) -> list[Word]:
    """The words of `text` one after another, each `seconds_per_word` long, as Whisper writes them."""
    words = []
    for index, token in enumerate(text.split()):
        at = start + index * seconds_per_word
        words.append(Word(text=f" {token}", start=at, end=at + seconds_per_word))
    return words


def measured(
    words: list[Word], *, seconds: float = 60.0, terms: tuple[str, ...] = (), target: int = 20, sounds=()
):
    return measure(words, seconds=seconds, terms=terms, target_seconds=target, sounds=sounds)


TEXT_30 = " ".join(f"word{n}" for n in range(30))


@pytest.mark.parametrize("span", [12.0, 20.0, 9.0])
def test_words_per_minute_is_counted_over_the_time_spent_speaking(span: float) -> None:
    words = spoken(TEXT_30, start=3.0, seconds_per_word=span / 30)
    result = measured(words, seconds=span + 8.0)
    assert result.words == 30
    assert result.words_per_minute == pytest.approx(30 / span * 60)
    low, high = PACE_BAND
    expected = (
        "slow" if result.words_per_minute < low else "fast" if result.words_per_minute > high else "steady"
    )
    assert result.pace == expected


def test_the_pace_band_is_the_usual_one_for_speech() -> None:
    assert PACE_BAND == (130, 175)
    assert measured(spoken(TEXT_30, seconds_per_word=12 / 30)).pace == "steady"


def test_pauses_over_two_seconds_are_listed_with_the_word_before_them() -> None:
    first = spoken("the buffer holds batches", seconds_per_word=0.4)
    long_gap = LONG_PAUSE_SECONDS + 0.5
    second = spoken("when it is last", start=first[-1].end + long_gap)
    short_gap = LONG_PAUSE_SECONDS - 0.1
    third = spoken("in the pipeline", start=second[-1].end + short_gap)
    exact = spoken("always", start=third[-1].end + LONG_PAUSE_SECONDS)
    result = measured(first + second + third + exact)
    assert [(pause.after, pause.start, pause.seconds) for pause in result.pauses] == [
        ("batches", pytest.approx(first[-1].end), pytest.approx(long_gap))
    ]


def test_with_the_voice_heard_a_pause_is_the_silence_it_left_not_the_gap_between_words() -> None:
    # Whisper stretches "hide." over most of the silence the voice left (6.23 s to 8.73 s): its
    # words are never more than 0.2 s apart.
    words = [
        Word(" stages", 5.3, 5.85),
        Word(" hide.", 5.9, 7.34),
        Word(" Then", 7.5, 8.9),
        Word(" it", 8.95, 9.1),
    ]
    result = measure(words, seconds=11.0, terms=(), target_seconds=20, voice=((0.5, 6.23), (8.73, 10.0)))
    assert [(p.after, p.before, p.start, p.seconds) for p in result.pauses] == [
        ("hide", "then", 6.23, pytest.approx(2.5))
    ]


def test_a_word_stretched_back_over_the_silence_is_the_word_after_the_pause() -> None:
    # Whisper may stamp the word after a silence from the end of the word before it: "and" starts
    # before the silence (6.2 s to 8.7 s) the voice left, but is said after it.
    words = [Word(" batches", 5.6, 6.18), Word(" and", 6.18, 8.9), Word(" one", 8.95, 9.2)]
    result = measure(words, seconds=11.0, terms=(), target_seconds=20, voice=((0.5, 6.2), (8.7, 10.0)))
    assert [(p.after, p.before) for p in result.pauses] == [("batches", "and")]


def test_with_the_voice_heard_a_gap_between_words_that_the_voice_went_on_through_is_no_pause() -> None:
    # An "ummm" the model wrote no word for: the words are 3 s apart, the voice never stopped.
    first = spoken("the buffer holds batches")
    second = spoken("when it is last", start=first[-1].end + 3.0)
    result = measure(first + second, seconds=12.0, terms=(), target_seconds=20, voice=((0.0, 9.0),))
    assert result.pauses == ()


def test_where_the_vad_heard_no_voice_the_pauses_are_the_gaps_between_words() -> None:
    first = spoken("the buffer holds batches")
    second = spoken("when it is last", start=first[-1].end + 3.0)
    result = measure(first + second, seconds=12.0, terms=(), target_seconds=20, voice=())
    assert [(p.after, p.before) for p in result.pauses] == [("batches", "when")]


def test_with_the_voice_heard_silence_before_the_first_word_and_after_the_last_is_no_pause() -> None:
    words = spoken("prefetch goes last", start=5.0)
    result = measure(words, seconds=20.0, terms=(), target_seconds=20, voice=((4.9, 6.3),))
    assert result.pauses == ()


def test_silence_before_the_first_word_and_after_the_last_is_no_pause() -> None:
    result = measured(spoken("prefetch goes last", start=5.0), seconds=20.0)
    assert result.pauses == ()


def test_um_uh_and_basically_always_count_as_fillers() -> None:
    result = measured(spoken("Um, the buffer uh holds, umm, batches. Basically it overlaps work. Uhh."))
    assert dict(result.fillers) == {"um": 2, "uh": 2, "basically": 1}
    assert result.filler_count == 5


def test_like_counts_only_where_it_is_set_off_by_a_comma() -> None:
    result = measured(spoken("It is, like, faster. I like prefetch. Something like a queue. Like, really."))
    assert dict(result.fillers) == {"like": 2}


def test_so_counts_where_it_opens_a_sentence_or_is_set_off_by_a_comma() -> None:
    text = "So the buffer fills. It is so fast. So that it overlaps. It goes last, so, yes. And so on."
    assert dict(measured(spoken(text)).fillers) == {"so": 2}


def test_you_know_counts_where_it_is_set_off_by_punctuation() -> None:
    text = "You know, it overlaps. Do you know why? It hides variance, you know. You know the answer."
    assert dict(measured(spoken(text)).fillers) == {"you know": 2}


def test_erm_er_and_hmm_count_as_fillers_too() -> None:
    result = measured(spoken("Erm, the buffer, er, holds batches. Hmm. It overlaps, hm, the step."))
    assert dict(result.fillers) == {"erm": 1, "er": 1, "hmm": 2}


def test_a_filler_heard_in_a_sound_alone_counts_once_and_a_word_heard_alone_does_not() -> None:
    words = spoken("prefetch goes last after batch", seconds_per_word=1.0)
    sounds = (Sound(1.2, 1.6, "Um."), Sound(2.2, 2.5, "Last."), Sound(3.1, 3.4, "Uh, uh."))
    result = measured(words, sounds=sounds)
    assert dict(result.fillers) == {"um": 1, "uh": 1}
    assert result.unclear_sounds == 0


def test_a_filler_already_written_is_not_counted_again_from_its_sound() -> None:
    result = measured(spoken("prefetch um goes last", seconds_per_word=1.0), sounds=(Sound(0.9, 1.5, "Um."),))
    assert dict(result.fillers) == {"um": 1}


def test_a_filler_written_just_after_its_sound_is_counted_once() -> None:
    words = (*spoken("prefetch goes last", seconds_per_word=1.0), Word(" Um,", 4.68, 4.68))
    result = measured(words, sounds=(Sound(4.19, 4.51, "Um."),))
    assert dict(result.fillers) == {"um": 1}


def test_an_um_written_where_a_word_was_heard_alone_is_that_word_not_a_filler() -> None:
    """Primed with fillers, the answer's decoding wrote "erm, erm" over "everything" said alone;
    heard alone, the sound was the word."""
    words = spoken("skipping erm erm above it", seconds_per_word=1.0)
    result = measured(words, sounds=(Sound(0.9, 2.9, "Everything."),))
    assert result.fillers == ()
    assert result.unclear_sounds == 0


def test_a_sound_in_which_nothing_was_heard_is_an_unclear_sound_not_a_filler() -> None:
    result = measured(spoken("prefetch goes last"), sounds=(Sound(1.2, 1.5, ""), Sound(2.2, 2.4, "...")))
    assert result.fillers == ()
    assert result.unclear_sounds == 2
    assert result.to_doc()["unclear_sounds"] == 2


def test_fillers_are_reported_in_a_fixed_order_and_only_those_said() -> None:
    result = measured(spoken("Basically, so, hmm, um, er, you know, erm, uh, like, it works."))
    assert [name for name, _ in result.fillers] == [name for name in FILLERS]
    assert measured(spoken("Prefetch goes last.")).fillers == ()


def test_the_most_used_words_leave_out_stop_words_and_fillers() -> None:
    text = (
        "The prefetch buffer holds batches. The buffer fills while the model trains, um, um. "
        "Prefetch overlaps the buffer with the step. Batches wait in the buffer."
    )
    result = measured(spoken(text))
    assert result.most_used[:3] == (("buffer", 4), ("prefetch", 2), ("batches", 2))
    assert all(count >= 2 for _, count in result.most_used)
    assert not {"the", "um", "with"} & {word for word, _ in result.most_used}


def test_the_card_s_terms_are_found_however_whisper_spells_them() -> None:
    terms = ("tf.data", "AUTOTUNE", "prefetch", "TPU", "interleave", "num_parallel_calls")
    text = "In TF data you prefetch with auto tune. On TPUs, num parallel calls matters."
    result = measured(spoken(text), terms=terms)
    assert result.terms_used == ("tf.data", "AUTOTUNE", "prefetch", "TPU", "num_parallel_calls")
    assert result.terms_missed == ("interleave",)


def test_a_plural_term_is_found_said_in_the_singular() -> None:
    terms = ("input pipelines", "batch", "TPUs", "batches", "notes")
    result = measured(spoken("the input pipeline overlaps the batch on a TPU and a note"), terms=terms)
    assert result.terms_used == ("input pipelines", "batch", "TPUs", "batches", "notes")
    assert measured(spoken("it is not so"), terms=("notes",)).terms_used == ()


def test_code_names_nobody_says_aloud_are_never_listed_as_not_said() -> None:
    terms = ("prefetch", "list_files", "TFRecordDataset", "cycle_length", "tf.data", "AUTOTUNE", "TensorFlow")
    result = measured(spoken("prefetch with list files"), terms=terms)
    assert result.terms_used == ("prefetch", "list_files")
    assert result.terms_missed == ("tf.data", "AUTOTUNE", "TensorFlow")
    said_names = ("tf.float32", "tf.GradientTape", "word2vec", "end-to-end")
    assert measured(spoken("nothing of it"), terms=said_names).terms_missed == said_names


def test_a_term_is_not_found_inside_a_longer_word() -> None:
    result = measured(spoken("The mapping is prefetched and batched."), terms=("map", "batch", "prefetch"))
    assert result.terms_used == ()


def test_duration_is_set_against_the_card_s_target() -> None:
    result = measured(spoken("prefetch goes last"), seconds=27.5, target=20)
    assert result.seconds == 27.5 and result.target_seconds == 20
    assert result.to_doc()["seconds"] == 27.5 and result.to_doc()["target_seconds"] == 20


def test_an_answer_with_no_words_measures_as_nothing_said() -> None:
    result = measured([], seconds=4.0, terms=("prefetch",))
    assert (result.words, result.words_per_minute, result.pace) == (0, 0.0, TOO_SHORT)
    assert result.fillers == () and result.most_used == () and result.pauses == ()
    assert result.terms_missed == ("prefetch",)


def test_punctuation_alone_is_not_a_word() -> None:
    words = [
        *spoken("prefetch goes"),
        Word(" ...", 0.8, 0.9),
        Word(" -", 0.9, 1.0),
        *spoken("last", start=1.0),
    ]
    result = measured(words)
    assert result.words == 3


def test_the_stored_document_says_what_the_page_and_the_api_show() -> None:
    words = [
        Word(" So,", 0.0, 0.3),
        Word(" prefetch", 0.4, 0.9),
        Word(" overlaps", 3.5, 4.0),
        Word(" prefetch.", 4.1, 4.6),
    ]
    doc = measure(words, seconds=6.0, terms=("prefetch", "AUTOTUNE"), target_seconds=20).to_doc()
    assert doc["fillers"] == {"so": 1} and doc["filler_count"] == 1
    assert doc["pauses"] == [
        {"after": "prefetch", "before": "overlaps", "start": 0.9, "end": 3.5, "seconds": 2.6}
    ]
    assert doc["terms_used"] == ["prefetch"] and doc["terms_missed"] == ["AUTOTUNE"]
    assert doc["pace_band"] == [130, 175] and doc["target_seconds"] == 20
    assert doc["most_used"] == [["prefetch", 2]]


def test_a_pace_over_less_than_two_seconds_of_speech_is_too_short_to_tell() -> None:
    # Two words in 0.18 s would be 666 words a minute: no pace is told from so little.
    words = [Word(" yes", 1.0, 1.08), Word(" prefetch.", 1.08, 1.18)]
    result = measured(words, seconds=3.0)
    assert (result.words, result.words_per_minute, result.pace) == (2, 0.0, TOO_SHORT)
    assert result.to_doc()["pace"] == TOO_SHORT


def test_a_pace_over_just_enough_speech_is_told() -> None:
    span = MIN_PACE_SECONDS + 0.1
    words = spoken("one two three four five six", seconds_per_word=span / 6)
    assert measured(words).words_per_minute == pytest.approx(6 / span * 60)


def test_the_pace_never_passes_what_an_export_holds() -> None:
    # Forty words in 2.4 s: faster than anyone speaks, and what a stored answer may carry at most.
    result = measured(spoken(" ".join(f"word{n}" for n in range(40)), seconds_per_word=0.06))
    assert result.words_per_minute == MAX_WORDS_PER_MINUTE
    assert result.pace == "fast"


def test_hedges_are_counted_a_minute_with_the_sentence_they_were_said_in() -> None:
    words = spoken(
        "I think prefetch goes last. It overlaps the step. Maybe it holds batches, kind of like a queue. "
        "The buffer is probably small.",
        seconds_per_word=0.5,
    )
    result = measured(words)
    assert [(h.phrase, h.sentence) for h in result.hedges] == [
        ("I think", "I think prefetch goes last."),
        ("maybe", "Maybe it holds batches, kind of like a queue."),
        ("kind of", "Maybe it holds batches, kind of like a queue."),
        ("probably", "The buffer is probably small."),
    ]
    span = words[-1].end - words[0].start
    assert result.hedges_per_minute == pytest.approx(4 / span * 60)


def test_kind_of_and_sort_of_after_a_determiner_name_a_kind_and_are_no_hedge() -> None:
    result = measured(
        spoken("What kind of buffer is it? A sort of queue, this kind of thing. It is sort of a queue.")
    )
    assert [(h.phrase, h.sentence) for h in result.hedges] == [("sort of", "It is sort of a queue.")]


def test_the_stored_document_lists_the_hedges() -> None:
    doc = measure(spoken("I guess prefetch wins."), seconds=6.0, terms=(), target_seconds=20).to_doc()
    assert doc["hedges"] == [{"phrase": "I guess", "sentence": "I guess prefetch wins."}]
    assert doc["hedges_per_minute"] == 0.0  # 2 s of speech or less tells no rate

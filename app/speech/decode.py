"""A recording, checked by decoding it (PyAV, the FFmpeg binding faster-whisper itself uses), never by
its name or its stated type, and decoded to what the model hears: 16 kHz mono samples.

Every refusal is an `Invalid` on the field "recording" with a sentence for the person who sent it.
Decoding is bounded four ways, so a hostile file costs little: only the containers and codecs a
browser or a recorder writes are opened, the stated sample rate and channels must be ones a
microphone records before the resampler is built from them, decoding stops as soon as the samples pass the length
limit (whatever the header claims), and it stops after `max_decode_seconds` of wall time.
"""

import io
import struct
import time
from dataclasses import dataclass

import av
import numpy as np
import numpy.typing as npt

from app.exceptions import Invalid
from app.speech.limits import LENGTH_SLACK_SECONDS, format_refusal

SAMPLE_RATE = 16000
# The demuxers FFmpeg may try: what MediaRecorder writes (WebM, Ogg, MP4) and common recorders.
CONTAINERS = "ogg,matroska,webm,wav,flac,mp3,mov,mp4"
CODECS = frozenset({"opus", "vorbis", "flac", "mp3", "aac"})
# Far above what 180 s of audio takes to decode here (well under a second).
DECODE_SECONDS = 30.0
# How much shorter than its header says a recording may decode before it counts as cut short.
_DECLARED_SLACK_SECONDS = 0.25
_UNREADABLE = (
    "The recording could not be read as audio: it is damaged, cut short or another kind of file "
    "(send Opus in WebM or Ogg, or WAV, FLAC, MP3 or AAC)."
)
_CUT_SHORT = "The recording was cut short: it ends before the length its file states. Record it again."


@dataclass(frozen=True)
class Recording:
    samples: npt.NDArray[np.float32]
    seconds: float


def _refusal(message: str) -> Invalid:
    return Invalid("recording", message)


def _too_long(max_seconds: int) -> Invalid:
    return _refusal(f"The recording is longer than {max_seconds} s, the longest answer transcribed.")


def _declared_seconds(container: av.container.InputContainer, stream: av.AudioStream) -> float | None:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return None


def _wav_cut_short(data: bytes) -> bool:
    """The WAV's data chunk states more bytes than the file has (a streamed WAV states 0 or ~0)."""
    offset = 12
    while offset + 8 <= len(data):
        chunk, size = struct.unpack_from("<4sI", data, offset)
        if chunk == b"data":
            return size not in (0, 0xFFFFFFFF) and offset + 8 + size > len(data)
        offset += 8 + size + (size & 1)
    return True


def _ogg_cut_short(data: bytes) -> bool:
    """An Ogg file is whole when its pages run to its end and the last one ends the stream."""
    offset, last_flags = 0, 0
    while offset < len(data):
        if data[offset : offset + 4] != b"OggS" or offset + 27 > len(data):
            return True
        segments = data[offset + 26]
        table = data[offset + 27 : offset + 27 + segments]
        if len(table) < segments:
            return True
        last_flags = data[offset + 5]
        offset += 27 + segments + sum(table)
    return offset != len(data) or not last_flags & 0x04


def _cut_short(data: bytes, container: str) -> bool:
    if container == "wav":
        return _wav_cut_short(data)
    if container == "ogg":
        return _ogg_cut_short(data)
    return False


def _samples(
    container: av.container.InputContainer, *, stream: av.AudioStream, max_seconds: int, deadline: float
) -> npt.NDArray[np.int16]:
    resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    limit = int((max_seconds + LENGTH_SLACK_SECONDS) * SAMPLE_RATE)
    chunks: list[npt.NDArray[np.int16]] = []
    total = 0

    def keep(frames: list[av.AudioFrame]) -> None:
        nonlocal total
        for frame in frames:
            chunk = frame.to_ndarray().reshape(-1).astype(np.int16, copy=False)
            total += len(chunk)
            if total > limit:
                raise _too_long(max_seconds)
            chunks.append(chunk)

    try:
        for packet in container.demux(stream):
            if time.monotonic() > deadline:
                raise _refusal(
                    f"The recording took longer than {DECODE_SECONDS:.0f} s to decode, far longer than sound does."
                )
            for frame in packet.decode():
                keep(resampler.resample(frame))
        keep(resampler.resample(None))
    except (av.FFmpegError, ValueError) as error:
        if isinstance(error, Invalid):
            raise
        at = total / SAMPLE_RATE
        raise _refusal(f"The recording is damaged or cut short at {at:.1f} s. Record it again.") from error
    return np.concatenate(chunks) if chunks else np.zeros(0, np.int16)


def decode_recording(
    data: bytes, *, max_seconds: int, max_decode_seconds: float = DECODE_SECONDS
) -> Recording:
    """The recording's sound, or an `Invalid` saying why it cannot be transcribed."""
    if not data:
        raise _refusal("The recording is empty: nothing was sent.")
    deadline = time.monotonic() + max_decode_seconds
    try:
        container = av.open(
            io.BytesIO(data), "r", options={"format_whitelist": CONTAINERS}, metadata_errors="ignore"
        )
    except (av.FFmpegError, ValueError, EOFError) as error:
        raise _refusal(_UNREADABLE) from error
    with container:
        if not container.streams.audio:
            raise _refusal("The file has no sound in it to transcribe.")
        stream = container.streams.audio[0]
        codec = stream.codec_context.name
        if codec not in CODECS and not codec.startswith("pcm_"):
            raise _refusal(
                f"The recording's sound is in {codec}, which is not read here: send Opus, Vorbis, FLAC, MP3, AAC or PCM."
            )
        refusal = format_refusal(
            rate=stream.codec_context.sample_rate, channels=stream.codec_context.channels
        )
        if refusal is not None:
            raise _refusal(refusal)
        declared = _declared_seconds(container, stream)
        if declared is not None and declared > max_seconds + LENGTH_SLACK_SECONDS:
            raise _too_long(max_seconds)
        samples = _samples(container, stream=stream, max_seconds=max_seconds, deadline=deadline)
        name = container.format.name
    seconds = len(samples) / SAMPLE_RATE
    if not len(samples):
        raise _refusal("The recording is 0 s long: nothing was recorded.")
    if (declared is not None and seconds < declared - _DECLARED_SLACK_SECONDS) or _cut_short(data, name):
        raise _refusal(_CUT_SHORT)
    return Recording(samples=samples.astype(np.float32) / 32768.0, seconds=seconds)

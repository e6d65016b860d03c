"""What a recording's length and sound format are checked against both where it is sent (the web,
before anything is queued) and where it is decoded (the worker). No audio library here: the web
image has none."""

import struct

# A recording stopped on the dot may run a frame or two past MAX_RECORDING_SECONDS.
LENGTH_SLACK_SECONDS = 0.5
# What microphones and recorders write. Past these, the resampler to 16 kHz builds its filter from
# the stated rate before reading a sample: a 1 KB WAV stating 250 MHz costs 18 s and 2 GB of it.
LOWEST_RATE, HIGHEST_RATE = 8000, 192000
MOST_CHANNELS = 8


def format_refusal(*, rate: int, channels: int) -> str | None:
    """Why a recording stating this sample rate and channel count is not decoded, or None."""
    if not LOWEST_RATE <= rate <= HIGHEST_RATE:
        return (
            f"The recording states a sample rate of {rate} Hz; recordings of {LOWEST_RATE} to "
            f"{HIGHEST_RATE} Hz are read. Record it again."
        )
    if not 1 <= channels <= MOST_CHANNELS:
        return (
            f"The recording states {channels} channels; recordings of 1 to {MOST_CHANNELS} are read. "
            "Record it again."
        )
    return None


def wav_format_refusal(data: bytes) -> str | None:
    """`format_refusal` for a WAV's `fmt ` chunk, read with no audio library; None when the file
    has no such chunk in the bytes given (decoding then says why it cannot be read)."""
    offset = 12
    while offset + 8 <= len(data):
        chunk, size = struct.unpack_from("<4sI", data, offset)
        if chunk == b"fmt " and offset + 16 <= len(data):
            channels, rate = struct.unpack_from("<HI", data, offset + 10)
            return format_refusal(rate=rate, channels=channels)
        offset += 8 + size + (size & 1)
    return None

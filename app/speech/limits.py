"""What a recording's length is checked against both where it is sent (the web, before anything
is queued) and where it is decoded (the worker). No audio library here: the web image has none."""

# A recording stopped on the dot may run a frame or two past MAX_RECORDING_SECONDS.
LENGTH_SLACK_SECONDS = 0.5

# placeholder until the demo presets land
PRESETS = {"placement": None, "deficit": None, "jitter": None, "synthetic": None, "memory": None, "to-device": None}

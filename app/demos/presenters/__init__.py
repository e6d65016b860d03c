"""What the demo pages, the API and the CLI show, computed here so templates only format.

Nothing here imports TensorFlow.
"""

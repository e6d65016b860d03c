"""Which answer points an answer covers and which pitfalls it asserts: the model-free parts,
measured by bench/coverage_methods.py against the hand-labelled answers of tests/coverage/."""

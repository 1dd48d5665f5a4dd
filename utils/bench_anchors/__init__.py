"""The parts of utils/bench-anchors.py (its docstring says what it measures and how)."""

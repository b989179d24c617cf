"""Integration tests of the online flow (issue 3): list, alter, reset, undo, recover against the real env."""

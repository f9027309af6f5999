"""The project a run works on: its root (:mod:`.root`)."""

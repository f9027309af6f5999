"""One emitter per output format."""

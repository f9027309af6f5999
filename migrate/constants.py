"""Constants the LibCST pass, the AST fast path and the commands share (importing LibCST, or
the analysis, for them would cost start-up: ``env`` needs only the verl sections)."""

CONFIG_PARAMETER = "config"  # the runtime function's parameter name (verl PR #6976)

#: Longest source text (in characters) handed to LibCST. Its parse and metadata
#: cost about a second and over a gigabyte of memory per megabyte of source, so a
#: bigger file (generated code, a data dump) is reported, not analysed.
MAX_SOURCE_CHARS = 1 << 20
#: Deepest nesting (of Python's AST; a chain ``a or b or ...`` counts each operand)
#: handed to LibCST. LibCST's own visitors give up with ``RecursionError`` a little
#: below this, but only after a parse whose time grows with the cube of the depth
#: (minutes at a few thousand), and its native parser overflows its stack and
#: kills the process (SIGSEGV) at depths CPython still accepts.
MAX_NESTING = 500

#: Top-level sections of verl's training config (verl ``trainer/config/ppo_trainer.yaml``).
VERL_SECTIONS = frozenset({
    "actor_rollout_ref", "critic", "algorithm", "trainer", "data", "reward_model", "reward",
    "global_profiler",
})

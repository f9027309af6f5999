"""The callee in effect's one-time costs (issue 26, benchmark items 9 and 10): the first
source's decision reads a plain pin without ``packaging``'s requirement parser."""

from __future__ import annotations

import subprocess
import sys


def test_no_lower_bound_reads_plain_pins_without_the_requirement_parser() -> None:
    """``_no_lower_bound`` answers as before (a floorless ``verl<0.9``, a bounded
    ``verl>=0.9``, a marker read by the parser, an unparsable string), and a plain pin
    imports neither ``packaging.requirements`` nor ``logging`` (~35 ms of item 9's run)."""
    code = (
        "import sys\n"
        "from ppo_migrate.rules.signatures import _no_lower_bound\n"
        "plain = [_no_lower_bound(r) for r in ('verl>=0.9', 'verl<0.9', 'verl<=0.8,!=0.7.0', 'verl==0.8.0', 'verl')]\n"
        "loaded = [m for m in ('packaging.requirements', 'logging') if m in sys.modules]\n"
        "other = [_no_lower_bound(r) for r in ('verl<0.9.0.dev0', \"verl<0.9; python_version>'3'\", 'verl >=0.9', 'verl[x]<1', 'verl @@ x')]\n"
        "print(plain, loaded, other)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "[False, True, True, False, False] [] [True, True, False, True, False]\n", done.stderr

"""A resolver that, like many real ones, always wants a scratch register:
with no temporary declared it declines every move that has a cycle
({"unsupported": ...}), and answers the others with a Kahn-style order of
movs (our windmill).  Some of the moves it declines have a sequence
(mincopy breaks a cycle that has a blade by borrowing the blade's
destination), so conform reports those refusals, with our sequence as the
witness."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from verified.algorithms import solve  # noqa: E402
from verified.core.graph import analyse  # noqa: E402
from verified.core.semantics import ParallelMove  # noqa: E402

for line in sys.stdin:
    r = json.loads(line)
    pm = ParallelMove.make(r["moves"], r["registers"], r["temps"])
    if not pm.temps and analyse(pm).cycles:
        answer = {"unsupported": "a cycle needs a scratch register"}
    else:
        answer = {"sequence": [op.to_json() for op in solve("windmill", pm)]}
    print(json.dumps(answer), flush=True)

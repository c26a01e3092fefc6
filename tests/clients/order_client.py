"""A resolver with a planted order-dependent bug, of the kind found in real
resolvers whose every request in development came sorted: it finds the
move that writes register r by binary search over the move list, as if the
moves were sorted by destination.  Sorted requests get correct answers
(from our shuf); in any other order some destination is not found, the
move is treated as absent, and the answer is wrong.

    verified conform --cmd "python tests/clients/order_client.py" --model swap --shapes --order shuffled
"""

import bisect
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from verified.algorithms import solve  # noqa: E402
from verified.core.semantics import ParallelMove  # noqa: E402

for line in sys.stdin:
    r = json.loads(line)
    moves = r["moves"]
    dsts = [d for d, _ in moves]  # assumed sorted: the bug
    found = []
    for reg in range(r["registers"]):
        i = bisect.bisect_left(dsts, reg)
        if i < len(dsts) and dsts[i] == reg:
            found.append(moves[i])
    pm = ParallelMove.make(found, r["registers"], r["temps"])
    print(json.dumps({"sequence": [op.to_json() for op in solve("shuf", pm)]}), flush=True)

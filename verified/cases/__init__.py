"""Every case generator of the project, once: parallel moves
(``moves.py``), every parallel move up to renaming of registers
(``shapes.py``) and allocator tapes (``tapes.py``)."""

from .moves import (
    Case,
    exhaustive_cases,
    exhaustive_count,
    no_fan_out,
    out_degree_1_rtg,
    random_case,
    random_case_stream,
    random_cases,
    random_moves,
    register_map_moves,
    register_maps,
    reorder_moves,
    shape_case_count,
    shape_cases,
    shrink_candidates,
)
from .tapes import (
    STATE_EXAMPLES,
    TapeCase,
    exhaustive_tape_count,
    exhaustive_tapes,
    random_tape,
    random_tape_stream,
    shrink_tape_candidates,
)

__all__ = ["Case", "exhaustive_cases", "exhaustive_count", "no_fan_out", "out_degree_1_rtg",
           "random_case", "random_case_stream", "random_cases", "random_moves",
           "register_map_moves", "register_maps", "reorder_moves", "shape_case_count", "shape_cases",
           "shrink_candidates", "STATE_EXAMPLES", "TapeCase", "exhaustive_tape_count",
           "exhaustive_tapes", "random_tape", "random_tape_stream", "shrink_tape_candidates"]

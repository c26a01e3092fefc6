"""The exit-status contract every ``verified`` command shares
(``docs/exit-codes.md``): 0 everything checked is right; 1 something
checked is wrong (a sequence, an answer, an allocation); 2 bad input, bad
use, or a client that broke the protocol.  A wrong answer outranks bad
input: a run that found both exits 1."""

EXIT_OK, EXIT_WRONG, EXIT_BAD_INPUT = 0, 1, 2


def worse(a: int, b: int) -> int:
    """The status that outranks the other (1 beats 2 beats 0)."""
    rank = {EXIT_OK: 0, EXIT_BAD_INPUT: 1, EXIT_WRONG: 2}
    return a if rank[a] >= rank[b] else b

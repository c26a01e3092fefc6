"""``crosshair check`` that stops at the first condition it refutes: what
``proofs/crosshair_run.py`` runs for a planted twin, whose one expectation
is a counterexample.

Run as a script (``python proofs/crosshair_first_error.py check TARGET
OPTIONS``, the arguments of ``crosshair``), never as ``-m proofs...``:
CrossHair must import the target's package itself, under its own import
settings, exactly as the ``crosshair`` command does, so this file imports
nothing of the project and puts the interpreter's ``bin`` directory first
on ``sys.path`` (where the ``crosshair`` command's ``sys.path[0]`` is).

CrossHair analyses a function's postconditions one after another, each
alone with its own budget, and prints every message only at the end,
sorted by line.  ``until_an_error`` (in place of CrossHair's
``run_checkables``) runs them in the same order and stops after the first
condition that reports an error at its own postcondition line.  So:

* every condition up to that one is analysed exactly as in the full run
  (the same fresh process, the same order, the same options);
* the verdict is the full run's: an error at a line outranks any later
  message at that line (CrossHair keeps the most severe), so the full run
  has it too, and exits 1 as this one does;
* the first error line is the full run's: a later condition reports at
  its own postcondition line (below this one), in the target's body
  (below every docstring line), or "unable to meet precondition", which is
  never an error.  (The one other place, the target's ``def`` line, is
  CrossHair's fallback for an exception with no frame of the target on
  its traceback; each target's body is a single call, so none arises.)

What is not run: the later conditions, whose outcome a twin's row never
shows (docs/proofs.md, "CrossHair").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable, List


def refutes_itself(checkable, messages: List) -> bool:
    """Some message is an error (CrossHair's own test: a state above
    "unable to meet precondition") at the checkable's own postcondition
    line.  Only a condition checkable (one postcondition) has one."""
    from crosshair.statespace import MessageType

    post = getattr(getattr(checkable, "conditions", None), "post", None)
    if not post:
        return False
    line, filename = post[0].line, post[0].filename
    return any(m.state > MessageType.PRE_UNSAT and m.line == line and m.filename == filename
               for m in messages)


def until_an_error(checkables: Iterable) -> List:
    """CrossHair's ``run_checkables`` (every message, merged per position,
    sorted), stopped after the first checkable that ``refutes_itself``."""
    from crosshair.core import MessageCollector

    collector = MessageCollector()
    for checkable in checkables:
        messages = list(checkable.analyze())
        collector.extend(messages)
        if refutes_itself(checkable, messages):
            break
    return collector.get()


def main() -> None:
    import crosshair.main as cli

    cli.run_checkables = until_an_error
    cli.main(sys.argv[1:])


if __name__ == "__main__":
    # where the `crosshair` console script has it: the venv's bin, not
    # this directory (whose modules would shadow top-level names)
    sys.path[0] = str(Path(sys.executable).parent)
    main()

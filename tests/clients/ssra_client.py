"""An allocator speaking conform's allocator wire format (docs/conform.md,
"Allocators"): our own allocator (the code behind `verified ssra alloc`),
or with --mutant NAME one of the broken allocators of mutants/ssra.py, or
with --via-cli the `verified ssra alloc` command itself, run once per tape.

    verified conform --allocator --cmd "python tests/clients/ssra_client.py" --registers 3
"""

import functools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: mutants/

from verified import ssra  # noqa: E402


def main() -> None:
    args = sys.argv[1:]
    via_cli = "--via-cli" in args
    allocate = ssra.allocate
    if "--mutant" in args:
        import mutants.ssra as catalogue

        name = args[args.index("--mutant") + 1]
        mutant = next(m for m in catalogue.MUTANTS + catalogue.PERFORMANCE_MUTANTS
                      if m.name == name)
        allocate = functools.partial(catalogue.allocate, mutant)
    for line in sys.stdin:
        request = json.loads(line)
        text = "".join(x + "\n" for x in request["tape"])
        n = request["registers"]
        if via_cli:
            program = alloc_via_cli(text, n)
        else:
            program = allocate(ssra.parse_tape(text), n).lines()
        print(json.dumps({"program": program}), flush=True)


def alloc_via_cli(text: str, n: int) -> list[str]:
    with tempfile.NamedTemporaryFile("w", suffix=".tape", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([sys.executable, "-m", "verified.cli", "ssra", "alloc", f.name,
                              "--registers", str(n), "--json"],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    return json.loads(out)["program"]


if __name__ == "__main__":
    main()

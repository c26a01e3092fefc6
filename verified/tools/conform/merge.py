"""``verified conform merge REPORT...``: the N ``--json`` reports of a run
split with ``--shard I/N`` (on N machines, N CI jobs, N processes of a
cluster: ``cluster.py``) merged into the report one run over every case
gives: the same counts, the same first and smallest examples (case numbers
are the whole run's), the same exit status.

What cannot be the same is said in the report's "notes": the time (the
merged "seconds" is the sum of the shards' sessions, the CPU spent rather
than the wall time); a program that broke the protocol in one shard (one
run would have stopped there, the other shards went on); refusal reasons
past the report's first 20 kinds, and failure classes past the first 100
(how they group depends on where the run was cut); a class whose smallest
case its shard did not show (past that shard's --max-classes).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ...core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_WRONG
from .checker import CLASSES, FAILED, FIRST, OTHER_CLASSES, REASONS, WRONG, Reason, Tally
from .cli import MACHINE_NOTE, shard_range, text_report

HELP = """\
Merges the --json reports of a run split with --shard I/N into the report
one run over every case gives (docs/conform.md, "Sharding").  Every shard
1..N must be given once, all of the same run (program, model or machine,
temps, contract, cases).  Prints the merged report as JSON (--text: as
conform prints it) and exits with its status: 0 every answer correct, 1 a
wrong answer or a declined solvable case, 2 a broken program, bad reports
or bad use.

example:
  for i in 1 2 3 4; do
    verified conform --cmd ./my_resolver --model swap --registers 7 --shard $i/4 --json > part$i.json
  done
  verified conform merge part*.json
"""

#: the fields that name the run: equal in every shard
SAME = ("program", "model", "machine", "allocator", "temps", "preserve", "cases")

#: every field of a report that ``merge`` knows how to combine exactly; a
#: report with any other field is refused rather than merged into a report
#: one run would not give
KNOWN = frozenset(SAME) | {
    "exit", "planned", "run", "correct", "refused_unsolvable", "failures",
    "program_failures", "refusals", "seconds", "cases_per_second", "broken",
    "first_failure", "classes", "failure_classes", "classes_not_shown", "smallest_failure",
    "failure_report", "refusal_report", "internal_errors", "gap_to_optimum", "notes", "shard"}


class BadReports(Exception):
    pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("reports", nargs="+", metavar="REPORT",
                        help="a --json report of `verified conform --shard I/N` ('-': stdin)")
    parser.add_argument("--text", action="store_true",
                        help="print the merged report as text, as conform prints it")


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line naming the command, exit 2 (as ``verified``'s)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verified conform merge",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        reports = [_load(path) for path in args.reports]
        merged = merge(reports)
    except BadReports as e:
        print(f"verified conform merge: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(text_report(merged) if args.text else json.dumps(merged, indent=2))
    return merged["exit"]


def _load(path: str) -> dict:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
        report = json.loads(text)
    except OSError as e:
        raise BadReports(f"cannot read {path}: {e.strerror or e}") from None
    except (ValueError, RecursionError) as e:  # RecursionError: nested too deep
        raise BadReports(f"{path} is not a JSON report ({e})") from None
    if not isinstance(report, dict) or not isinstance(report.get("shard"), dict):
        raise BadReports(f"{path} is not the --json report of a `verified conform --shard "
                         f"I/N` run (it has no \"shard\" object)")
    report["shard"]["path"] = path
    check_fields(report)
    return report


def check_fields(report: dict) -> None:
    """Refuse a report with a field ``merge`` does not know how to combine."""
    unknown = sorted(set(report) - KNOWN)
    if unknown:
        raise BadReports(f"{report['shard']['path']} has field(s) "
                         f"{', '.join(map(json.dumps, unknown))} that merge cannot combine "
                         f"exactly; no merged report is made")


def _check_shards(reports: list[dict]) -> list[dict]:
    """The reports in shard order, once each shard 1..N of one run is found."""
    n = reports[0]["shard"]["of"]
    by_index: dict[int, dict] = {}
    for r in reports:
        s = r["shard"]
        if s["of"] != n:
            raise BadReports(f"{s['path']} is shard {s['index']}/{s['of']}, "
                             f"{reports[0]['shard']['path']} one of {n}")
        if s["index"] in by_index:
            raise BadReports(f"shard {s['index']}/{n} is given twice: "
                             f"{by_index[s['index']]['shard']['path']} and {s['path']}")
        for key in SAME + ("planned_total",):
            mine = s.get(key) if key == "planned_total" else r.get(key)
            theirs = (reports[0]["shard"].get(key) if key == "planned_total"
                      else reports[0].get(key))
            if mine != theirs:
                raise BadReports(f"{s['path']} and {reports[0]['shard']['path']} are not "
                                 f"parts of one run: their {key!r} differ "
                                 f"({json.dumps(mine)} and {json.dumps(theirs)})")
        by_index[s["index"]] = r
    missing = [i for i in range(1, n + 1) if i not in by_index]
    if missing:
        shown = ", ".join(f"{i}/{n}" for i in missing[:10])
        more = f" and {len(missing) - 10:,} more" if len(missing) > 10 else ""
        raise BadReports(f"missing shard(s) {shown}{more}: every shard 1..{n} is needed")
    ordered = [by_index[i] for i in range(1, n + 1)]
    total = ordered[0]["shard"]["planned_total"]
    for r in ordered:
        s = r["shard"]
        lo, hi = shard_range(total, s["index"], n)
        if (s["first_case"], r["planned"]) != (lo, hi - lo):
            raise BadReports(f"{s['path']}: shard {s['index']}/{n} of {total:,} cases should "
                             f"be cases {lo:,}..{hi - 1:,}, it has {r['planned']:,} from "
                             f"{s['first_case']:,}")
    return ordered


def _size(r: dict, kind: str) -> tuple:
    return tuple(r["shard"]["sizes"][kind])


def merge(reports: list[dict]) -> dict:
    """The report of the whole run from its shards' reports."""
    if not reports:
        raise BadReports("no reports given")
    parts = _check_shards(reports)
    head = parts[0]
    out: dict[str, Any] = {"program": head["program"], "exit": EXIT_OK}
    for key in ("model", "machine", "allocator", "temps", "preserve"):
        if key in head:
            out[key] = head[key]
    run = sum(r["run"] for r in parts)
    seconds = sum(r["seconds"] for r in parts)
    out.update({"cases": head["cases"], "planned": head["shard"]["planned_total"], "run": run})
    for key in ("correct", "refused_unsolvable", "failures", "program_failures", "refusals"):
        out[key] = sum(r[key] for r in parts)
    out["seconds"] = round(seconds, 3)
    out["cases_per_second"] = round(run / seconds) if seconds > 0 else 0
    notes: list[str] = []
    broken = [r for r in parts if "broken" in r]
    if broken:
        out["broken"] = broken[0]["broken"]
        notes.append(f"shard {broken[0]['shard']['index']}/{len(parts)}'s program broke the "
                     f"protocol; one run would have stopped there, the other shards went on")
    firsts = [r["first_failure"] for r in parts if "first_failure" in r]
    if firsts:
        out["first_failure"] = min(firsts, key=lambda e: e["case"])
    classes = _merge_classes(parts)
    limit = head["shard"]["max_classes"]
    entries = _shown(parts, classes, WRONG, limit, notes)
    wrong = [k for k, c in classes.items() if c[0] == WRONG]
    if wrong:
        out["classes"] = len(wrong)
        if entries:
            out["failure_classes"] = entries
        shown = {e["class"] for e in entries}
        hidden = [k for k in wrong if k not in shown]
        if hidden:
            out["classes_not_shown"] = {"classes": len(hidden),
                                        "answers": sum(classes[k][1] for k in hidden)}
            if OTHER_CLASSES in classes:
                out["classes_not_shown"]["more_than_counted"] = True
    if entries:
        sizes = {k: tuple(size) for r in parts
                 for k, size in r["shard"].get("shown_sizes", {}).items()}
        best = min(entries, key=lambda e: (sizes.get(e["class"], ()), e["smallest"]["case"]))
        out["smallest_failure"] = dict(best["smallest"], **{"class": best["class"]})
    if len(classes) > CLASSES or any(row[0] == OTHER_CLASSES for r in parts
                                     for row in r["shard"]["classes"]):
        notes.append(f"more than {CLASSES} failure classes: the classes past the first "
                     f"{CLASSES} may be counted apart differently from one run")
    failing = [r for r in parts if "failure_report" in r]
    if failing:
        fr: dict[str, Any] = {
            "reasons": _merge_texts(failing, FAILED),
            "first": min((r["failure_report"]["first"] for r in failing),
                         key=lambda e: e["case"])}
        for e in _shown(parts, classes, FAILED, 1, notes):
            fr["smallest"] = e["smallest"]
        out["failure_report"] = fr
    refusing = [r for r in parts if "refusal_report" in r]
    if refusing:
        reasons = _merge_texts(refusing, "refused")
        if "(other reasons)" in reasons:
            notes.append(f"declined cases for more than {REASONS} kinds of reason: "
                         f"the count of each kind past the first {REASONS} may differ from "
                         f"one run's")
        out["refusal_report"] = {
            "allowed": refusing[0]["refusal_report"]["allowed"],
            "reasons": reasons,
            "first": min((r["refusal_report"]["first"] for r in refusing),
                         key=lambda e: e["case"]),
            "smallest": min(refusing, key=lambda r: (
                _size(r, "refused"), r["refusal_report"]["smallest"]["case"]))[
                    "refusal_report"]["smallest"],
        }
    internal = [m for r in parts for m in r["shard"]["internal"]]
    internal += [m for r in parts
                 for m in r.get("internal_errors", [])[len(r["shard"]["internal"]):]][:FIRST]
    if internal:
        out["internal_errors"] = internal
    if any("gap_to_optimum" in r for r in parts):
        out["gap_to_optimum"] = _merge_gaps(parts)
    seen = set()
    for r in parts:
        for note in r.get("notes", []):
            if note != MACHINE_NOTE and note not in seen:
                seen.add(note)
                out.setdefault("notes", []).append(note)
    if "machine" in out and out["refused_unsolvable"]:
        out.setdefault("notes", []).append(MACHINE_NOTE)
    if notes:
        out.setdefault("notes", []).extend(notes)
    out["exit"] = _exit(out)
    return out


def _merge_texts(parts: list[dict], kind: str) -> dict:
    """The refusal or failure texts as one run counts them: each shard's
    groups (equal but for numbers) replayed in shard order through the one
    run's own grouping (``Tally``), so the first ``REASONS`` groups are
    apart and each is printed as the first program text of its group."""
    t = Tally()
    for r in parts:
        for group, text, count, varies in r["shard"]["reasons"].get(kind, []):
            t._reason(kind, group, Reason(text, count, varies))
    return t.reason_counts(kind)


def _merge_classes(parts: list[dict]) -> dict:
    """Every failure class of the run: key -> [kind, count, smallest], the
    smallest as (size, case number) or None, summed over the shards."""
    out: dict[str, list] = {}
    for r in parts:
        for row in r["shard"]["classes"]:
            key, kind, count, *smallest = row
            mine = (tuple(smallest[0]), smallest[1]) if smallest else None
            have = out.get(key)
            if have is None:
                out[key] = [kind, count, mine]
                continue
            have[1] += count
            if mine is not None and (have[2] is None or mine < have[2]):
                have[2] = mine
    return out


def _shown(parts: list[dict], classes: dict, kind: str, limit: int, notes: list) -> list:
    """The report entries of the ``limit`` most frequent classes of ``kind``
    (``cli.shown_classes``' order), each as shrunk by the shard that found
    its smallest case."""
    mine = [(k, c) for k, c in classes.items()
            if c[0] == kind and k != OTHER_CLASSES and c[2] is not None]
    mine.sort(key=lambda kc: (-kc[1][1], kc[1][2], kc[0]))
    field = "failure_classes" if kind == WRONG else "failure_report"
    out = []
    for key, (_, count, (size, found)) in mine[:limit]:
        entry = None
        for r in parts:
            if kind == WRONG:
                got = [e for e in r.get(field, []) if e["class"] == key]
            else:
                fr = r.get(field, {})
                got = [{"class": key, "smallest": fr["smallest"]}] if "smallest" in fr else []
            if got and got[0]["smallest"].get("found_case") == found:
                entry = dict(got[0], count=count)
        if entry is None:
            notes.append(f"the smallest case of class {key!r} (case #{found}) was not shown "
                         f"by its shard: run the shards with a larger --max-classes")
            continue
        out.append(entry)
    return out


def _merge_gaps(parts: list[dict]) -> list[dict]:
    gaps: dict[Any, dict] = {}
    for r in parts:
        sizes = {gap: tuple(size) for gap, size in r["shard"]["gap_sizes"]}
        for g in r.get("gap_to_optimum", []):
            gap = g["gap"]
            key = (sizes[gap], g["smallest"]["case"])
            have = gaps.get(gap)
            if have is None:
                gaps[gap] = {"count": g["count"], "key": key, "smallest": g["smallest"]}
            else:
                have["count"] += g["count"]
                if key < have["key"]:
                    have["key"], have["smallest"] = key, g["smallest"]
    return [{"gap": gap, "count": g["count"], "smallest": g["smallest"]}
            for gap, g in sorted(gaps.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]


def _exit(r: dict) -> int:
    """``cli.exit_status`` on the merged counts: 1 beats 2 beats 0."""
    allowed = r.get("refusal_report", {}).get("allowed", False)
    if r["failures"] or r.get("program_failures") or (r["refusals"] and not allowed):
        return EXIT_WRONG
    if "broken" in r or "internal_errors" in r or r["run"] == 0:
        return EXIT_BAD_INPUT
    return EXIT_OK

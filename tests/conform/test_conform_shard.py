"""``--shard I/N`` and ``verified conform merge``: the shards of a run are
disjoint and cover it, in every mode, and their merged reports are the
report of one run, field for field (the times apart), wrong answers,
refusals and gaps included; bad sets of reports are refused with one
line."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from verified.cli import main
from verified.tools.conform import merge as M
from verified.tools.conform.cli import shard_range

from tests.support import py_cmd

CLIENTS = Path(__file__).resolve().parent.parent / "clients"
TIMES = ("seconds", "cases_per_second")

#: declines every move with a cycle, naming its length in letters (several
#: kinds of reason), answers the rest with nothing (wrong when it moves)
DECLINER = py_cmd(
    "import sys, json\n"
    "for line in sys.stdin:\n"
    "    r = json.loads(line)\n"
    "    cyc = [d for d, s in r['moves'] if d != s]\n"
    "    print(json.dumps({'unsupported': 'cycle ' + 'abcdefgh'[len(cyc)]} if len(cyc) > 1"
    " else {'sequence': []}), flush=True)")


def conform(capsys, *args: str) -> tuple[int, dict]:
    code = main(["conform", *args, "--json", "--progress", "never", "--jobs", "1"])
    return code, json.loads(capsys.readouterr().out)


def untimed(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in TIMES}


def test_shard_ranges_are_disjoint_and_cover_every_case():
    for planned in (0, 1, 2, 7, 100, 2_223_277):
        for n in (1, 2, 3, 7, 64):
            ranges = [shard_range(planned, i, n) for i in range(1, n + 1)]
            assert ranges[0][0] == 0 and ranges[-1][1] == planned
            assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
            assert max(hi - lo for lo, hi in ranges) - min(hi - lo for lo, hi in ranges) <= 1


def test_exhaustive_cases_start_where_islice_would():
    from verified import cases
    every = list(cases.exhaustive_cases(5))
    for start in [0, 1, 2, 3, 4, 5, 11, 12, 13, 100, 2000, len(every) - 1, len(every),
                  len(every) + 3]:
        assert list(cases.exhaustive_cases(5, start=start)) == every[start:]
    every = list(cases.exhaustive_cases(4, 2))
    assert all(list(cases.exhaustive_cases(4, 2, k)) == every[k:] for k in range(len(every)))


def run_sharded(capsys, tmp_path, n: int, *args: str) -> tuple[int, dict, int, dict, list]:
    whole_code, whole = conform(capsys, *args)
    paths, requests = [], []
    for i in range(1, n + 1):
        _, part = conform(capsys, *args, "--shard", f"{i}/{n}")
        assert part["shard"]["index"] == i and part["planned"] == part["run"]
        p = tmp_path / f"part{i}.json"
        p.write_text(json.dumps(part))
        paths.append(str(p))
    code = main(["conform", "merge", *reversed(paths)])
    merged = json.loads(capsys.readouterr().out)
    return whole_code, whole, code, merged, paths


MODES = {
    "exhaustive, wrong answers": lambda c: ["--cmd", str(c), "--model", "swap",
                                            "--registers", "4"],
    "random, optimal gaps": lambda c: ["--cmd", str(c), "--model", "temp", "--registers", "9",
                                       "--random", "500", "--optimal", "--seed", "s"],
    "shapes, shuffled": lambda c: ["--cmd", str(c), "--model", "swap", "--registers", "6",
                                   "--shapes", "--relabel", "1", "--order", "shuffled"],
    "refusals of several kinds": lambda c: ["--cmd", DECLINER, "--model", "swap",
                                            "--registers", "4", "--no-shrink"],
    "machine, random": lambda c: ["--cmd", str(c), "--machine", "x86-64", "--random", "40",
                                  "--no-shrink"],
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_merged_shards_are_the_report_of_one_run(mode, capsys, tmp_path, c_client_broken):
    args = MODES[mode](c_client_broken)
    whole_code, whole, code, merged, _ = run_sharded(capsys, tmp_path, 3, *args)
    assert "shard" not in merged
    assert untimed(merged) == untimed(whole) and code == whole_code == whole["exit"]
    assert list(merged) == list(whole)  # the same fields, in the same order
    if mode != "shapes, shuffled":
        assert whole["exit"] == 1  # each mode's run has something to merge


def test_a_shard_numbers_its_cases_as_the_whole_run_does(capsys, c_client_broken):
    from verified import cases
    from verified.tools.conform import moves as mv
    args = ["--cmd", str(c_client_broken), "--model", "swap", "--registers", "4", "--no-shrink"]
    _, whole = conform(capsys, *args)
    _, last = conform(capsys, *args, "--shard", "2/2")
    lo, hi = shard_range(whole["planned"], 2, 2)
    assert (last["shard"]["first_case"], last["planned"]) == (lo, hi - lo)
    number = last["first_failure"]["case"]
    assert lo <= number < hi and whole["first_failure"]["case"] < lo
    # case #number of the shard is case #number of the whole run
    every = list(cases.exhaustive_cases(4))
    assert last["first_failure"]["request"] == mv.MoveType("swap").request(every[number])


def test_more_shards_than_cases_leave_empty_shards_that_still_merge(capsys, tmp_path,
                                                                     c_client):
    args = ["--cmd", str(c_client), "--model", "swap", "--registers", "1"]  # 2 cases
    whole_code, whole, code, merged, paths = run_sharded(capsys, tmp_path, 3, *args)
    assert untimed(merged) == untimed(whole) and code == whole_code == 0
    # the rate is the whole run's answers over the shards' seconds, also
    # under a second; shards timed at 0 s (rounded): no rate, as a run of
    # 0 s reports none
    for each, want in ((0.25, (0.75, 3)), (0.0, (0.0, 0))):
        for p in paths:
            part = json.loads(Path(p).read_text())
            Path(p).write_text(json.dumps({**part, "seconds": each}))
        assert main(["conform", "merge", *paths]) == 0
        merged = json.loads(capsys.readouterr().out)
        assert merged["run"] == 2 and (merged["seconds"], merged["cases_per_second"]) == want


def test_bad_sets_of_reports_are_refused_with_one_line(capsys, tmp_path, c_client):
    args = ["--cmd", str(c_client), "--model", "swap", "--registers", "2"]
    *_, paths = run_sharded(capsys, tmp_path, 2, *args)
    _, other = conform(capsys, "--cmd", str(c_client), "--model", "temp", "--registers", "2",
                       "--shard", "2/2")
    (tmp_path / "other.json").write_text(json.dumps(other))
    _, whole = conform(capsys, *args)
    (tmp_path / "whole.json").write_text(json.dumps(whole))
    (tmp_path / "junk.json").write_text("{")
    for given, message in [
        ([paths[0]], "missing shard(s) 2/2: every shard 1..2 is needed"),
        ([paths[0], paths[0]], f"shard 1/2 is given twice: {paths[0]} and {paths[0]}"),
        ([paths[0], str(tmp_path / "other.json")], f"{tmp_path / 'other.json'} and {paths[0]} "
         f"are not parts of one run: their 'model' differ (\"temp\" and \"swap\")"),
        ([str(tmp_path / "whole.json")], f"{tmp_path / 'whole.json'} is not the --json report "
         f"of a `verified conform --shard I/N` run (it has no \"shard\" object)"),
        ([str(tmp_path / "junk.json")], f"{tmp_path / 'junk.json'} is not a JSON report "
         f"(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
        ([str(tmp_path / "none.json")], f"cannot read {tmp_path / 'none.json'}: No such file "
         f"or directory"),
    ]:
        assert main(["conform", "merge", *given]) == 2
        assert capsys.readouterr().err == f"verified conform merge: error: {message}\n"


@pytest.mark.parametrize("bad", ["0/3", "4/3", "3", "a/b", "1/0", "2/1", "1/2/3"])
def test_bad_shard_is_one_line(bad, capsys):
    with pytest.raises(SystemExit) as e:
        main(["conform", "--cmd", "true", "--model", "swap", "--shard", bad])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"verified conform: error: argument --shard: {bad!r} is not I/N with "
                          f"1 <= I <= N <= 1,000,000") and err.count("\n") == 1


def test_the_text_report_says_which_shard_it_is(capsys, c_client):
    code = main(["conform", "--cmd", str(c_client), "--model", "swap", "--registers", "3",
                 "--shard", "2/4", "--progress", "never"])
    out = capsys.readouterr().out
    lo, hi = shard_range(3 + 8 + 64, 2, 4)
    assert code == 0 and (f"  shard 2/4: cases #{lo}..#{hi - 1} of 75 (`verified conform merge` joins "
                         f"the shards' --json reports)\n") in out


# ---------------------------------------------------------------------------
# The cluster runner (verified-parmove[cluster])
# ---------------------------------------------------------------------------


class InlineClient:
    """Dask's Client.map/gather, run here one task after another."""

    def map(self, fn, *iterables, pure=True):
        return [fn(*args) for args in zip(*iterables)]

    def gather(self, futures):
        return futures


def test_the_cluster_runner_maps_every_shard_and_merges(capsys, c_client_broken):
    from verified.tools.conform import cluster
    args = ["--cmd", str(c_client_broken), "--model", "swap", "--registers", "4"]
    _, whole = conform(capsys, *args)
    merged = cluster.run_on(InlineClient(), args, 3)
    assert untimed(merged) == untimed(whole) and merged["exit"] == 1


@pytest.mark.slow  # a LocalCluster takes seconds to start; make verify runs it
def test_a_local_dask_cluster_gives_the_report_of_one_run(capsys, c_client_broken):
    pytest.importorskip("distributed")
    args = ["--cmd", str(c_client_broken), "--model", "swap", "--registers", "4"]
    _, whole = conform(capsys, *args)
    code = main(["conform", "cluster", "--local", "2", "--shards", "3", "--", *args])
    captured = capsys.readouterr()
    assert code == 1 and untimed(json.loads(captured.out)) == untimed(whole)
    assert captured.err.startswith("verified conform cluster: 3 shards in ")


@pytest.mark.parametrize("args, message", [
    (["--shards", "2", "--", "--cmd", "x"], "one of the arguments --scheduler --local is "
     "required"),
    (["--local", "1", "--shards", "2"], "give conform's arguments after --, e.g. -- --cmd "
     "./prog --model swap"),
    (["--local", "1", "--shards", "2", "--", "--cmd", "x", "--shard", "1/2"],
     "--shard is set by the cluster runner; leave it out of CONFORM-ARGS"),
    (["--local", "1", "--shards", "0", "--", "--cmd", "x"], "--shards must be 1..1,000,000, "
     "not 0"),
])
def test_bad_cluster_use_is_one_line(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(["conform", "cluster", *args])
    assert e.value.code == 2
    assert capsys.readouterr().err == (f"verified conform cluster: error: {message} (see "
                                       f"`verified conform cluster --help`)\n")


def test_the_cluster_runner_without_dask_says_what_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    assert main(["conform", "cluster", "--local", "1", "--shards", "2", "--",
                 "--cmd", "true", "--model", "swap"]) == 2
    assert capsys.readouterr().err == (
        "verified conform cluster: error: Dask distributed is not installed; "
        "pip install 'verified-parmove[cluster]'\n")


def test_a_shard_that_is_bad_use_is_one_line(capsys):
    from verified.tools.conform import cluster
    with pytest.raises(RuntimeError, match=r"^shard 1/2: verified conform: error: --model is "
                       r"required"):
        cluster.run_on(InlineClient(), ["--cmd", "true"], 2)


def test_texts_merge_as_one_run_groups_them():
    """One run counts the first 20 groups of texts apart (texts equal but
    for their numbers are one group, printed as its first text), in the
    order first seen, the rest together; the merge replays each shard's
    groups in shard order through the same grouping."""
    def part(groups):
        return {"shard": {"reasons": {"refused": groups}}}
    first = [[f"why {chr(65 + i)}", f"why {chr(65 + i)}", 2, False] for i in range(15)]
    second = [[f"why {chr(97 + i)}", f"why {chr(97 + i)}", 1, False] for i in range(10)]
    reasons = M._merge_texts([part(first), part(second + [first[0][:2] + [5, False]])],
                             "refused")
    # by count, ties in the order first seen; the 21st group on is lumped
    assert list(reasons) == ["why A", "(other reasons)", *[g[0] for g in first[1:]],
                             *[g[0] for g in second[:5]]]
    assert reasons["why A"] == 7 and reasons["(other reasons)"] == 5
    # "V8 crash at 1" in one shard and "V8 crash at 2" in the next: one group,
    # printed as the program wrote its first text
    merged = M._merge_texts([part([["V8 crash at N", "V8 crash at 1", 1, False]]),
                             part([["V8 crash at N", "V8 crash at 2", 3, False]])], "refused")
    assert merged == {"V8 crash at 1 (and texts that differ from it only in numbers)": 4}


MULTI = shlex.join([sys.executable, "-m", "mutants.serve",
                    "swap_two_slots+immediate_before_read"])
FAILS_ON_CYCLES = py_cmd(
    "import sys, json\n"
    "for line in sys.stdin:\n"
    "    r = json.loads(line)\n"
    "    cyc = [d for d, s in r['moves'] if d != s]\n"
    "    print(json.dumps({'failure': 'abort at %d' % len(cyc)} if len(cyc) > 1"
    " else {'sequence': []}), flush=True)")


#: MULTI's run on x86-64's i32 and v128 moves (1,974 cases): 5 failure
#: classes, and cases with no sequence (v128 constants: the machine note);
#: shrinking each class in the whole run and in each shard is most of a
#: run's time, and all types (8,727 cases, 8 classes) cost twice as much
#: for no other branch of the merge (docs/testing.md)
MULTI_RUN = ["--cmd", MULTI, "--machine", "x86-64", "--exhaustive", "--max-moves", "2",
             "--types", "i32", "v128"]


@pytest.mark.parametrize("args", [
    MULTI_RUN,
    ["--cmd", FAILS_ON_CYCLES, "--model", "swap", "--registers", "3"],
], ids=["classes", "program failures"])
def test_failure_classes_and_program_failures_merge_as_one_run(args, capsys, tmp_path):
    whole_code, whole, code, merged, _ = run_sharded(capsys, tmp_path, 3, *args)
    assert whole_code == 1 and ("failure_classes" in whole or "failure_report" in whole)
    assert untimed(merged) == untimed(whole) and code == whole_code
    assert list(merged) == list(whole)


def test_a_report_field_merge_does_not_know_is_refused_not_dropped(capsys, tmp_path, c_client):
    args = ["--cmd", str(c_client), "--model", "swap", "--registers", "2"]
    *_, paths = run_sharded(capsys, tmp_path, 2, *args)
    part = json.loads(Path(paths[1]).read_text())
    part["surprise"] = []
    Path(paths[1]).write_text(json.dumps(part))
    assert main(["conform", "merge", *paths]) == 2
    assert capsys.readouterr().err == (
        f"verified conform merge: error: {paths[1]} has field(s) \"surprise\" that "
        f"merge cannot combine exactly; no merged report is made\n")


def test_a_class_its_shard_did_not_show_is_said_not_invented(capsys, tmp_path):
    """Past --max-classes a shard shrinks only its own most frequent classes:
    when the whole run's top class has its smallest case in a shard that did
    not show it, the merge cannot give that class's shrunk case.  It says so
    in a note and counts the class as not shown; every class it does show is
    the one run's, and the counts are the one run's."""
    args = [*MULTI_RUN, "--max-classes", "1"]
    whole_code, whole, code, merged, _ = run_sharded(capsys, tmp_path, 3, *args)
    assert code == whole_code == 1
    for key in ("failures", "correct", "refusals", "run", "classes"):
        assert merged[key] == whole[key], key
    shown = {e["class"]: e for e in whole["failure_classes"]}
    for e in merged.get("failure_classes", []):
        assert e == shown[e["class"]]
    # this run's top class has its smallest case in a shard that did not show it
    assert merged.get("failure_classes") != whole["failure_classes"]
    if merged.get("failure_classes") != whole["failure_classes"]:
        assert any("was not shown by its shard" in n for n in merged["notes"])
        hidden = merged["classes_not_shown"]
        assert hidden["answers"] + sum(e["count"] for e in merged.get("failure_classes", [])) \
            == whole["failures"]

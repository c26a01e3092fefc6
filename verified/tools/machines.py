"""``verified machines``: the preset machine descriptions and profiles
(``docs/machines.md``).  ``verified machines`` lists the presets, one per
line (name, classes, stack, swaps), then the shipped compiler profiles
(``verified/data/profiles/``: the preset each derives from, what it
reserves, its scratch, push/pop, types and the upstream files its facts
come from); ``verified machines show NAME|FILE``
prints a preset or a machine file as JSON, every field with its default
filled in; ``verified machines derive PRESET [--reserve R...] [--scratch
R...] [--types T...] -o FILE.json`` writes a **profile**: the preset with
the registers a compiler reserves, the scratch it keeps free and the types
it uses."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.exits import EXIT_BAD_INPUT, EXIT_OK
from ..core.machine import (
    PRESETS, PROFILES, Machine, machine_from_json, preset, preset_json, profile_json)
from ..core.semantics import PreconditionError

MACHINES_HELP = """\
verified machines                 list the preset machines and the compiler profiles
                                  (a preset plus how one compiler uses it: reserved,
                                  scratch, push/pop, types; each cites its sources)
verified machines show NAME|FILE  print a preset, a profile, or a machine/profile file,
                                  as JSON
                                  (the "machine" field of a request may be that name
                                  or such an object)
verified machines derive PRESET [--reserve R...] [--scratch R...] [--types T...]
                         [--name NAME] -o FILE.json
                                  write a profile: PRESET with these reserved
                                  registers, scratch registers/slots and types (each
                                  option replaces the preset's own list; without it
                                  the preset's stays; --reserve with no names: none)

exit status: 0; 2 for an unknown NAME, an unreadable FILE, a profile that is not
a machine (a reserved or scratch name the preset lacks, an unknown type) or a
bad action.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = MACHINES_HELP
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("action", nargs="?", choices=["list", "show", "derive"],
                        default="list", help="list (default), show or derive")
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="the preset (show: or a machine file; derive: the preset)")
    parser.add_argument("--reserve", nargs="*", metavar="R",
                        help="derive: the profile's reserved registers")
    parser.add_argument("--scratch", nargs="*", metavar="R",
                        help="derive: the profile's scratch registers and slots")
    parser.add_argument("--types", nargs="*", metavar="T",
                        help="derive: keep only these of the preset's types")
    parser.add_argument("--name", dest="label", metavar="NAME",
                        help="derive: the profile's name (default PRESET-profile)")
    parser.add_argument("-o", "--out", metavar="FILE.json",
                        help="derive: where to write the profile ('-': stdout)")


def summary(m: Machine) -> str:
    """One line: name, classes (registers x width), stack, swaps, flags."""
    classes = ", ".join(f"{c.name} {len(c.registers)}x{c.width}" for c in m.classes)
    stack = ", ".join(f"{len(g.names)}x{g.width}" for g in m.stack) or "none"
    return (f"{m.name:10} classes: {classes}; slots: {stack}; swap: "
            f"{', '.join(m.swap) or 'none'}; mem_to_mem: {str(m.mem_to_mem).lower()}; "
            f"immediate_to: {', '.join(m.immediate_to)}; cross_class: "
            f"{str(m.cross_class).lower()}")


def profile_summary(name: str) -> list[str]:
    """A shipped profile in two lines: what it derives from and sets, and
    the compiler and files its facts come from."""
    prof, m = profile_json(name), preset(name)
    words = lambda xs: " ".join(xs) or "none"
    return [f"{name:18} profile of {prof['base']}: reserved {words(m.reserved)}; scratch "
            f"{words(m.scratch)}; push {words(m.push)}; pop {words(m.pop)}; types "
            f"{words(t.name for t in m.types)}",
            f"{'':18} {prof['compiler']}; from {'; '.join(prof['files'])}"]


def load(name: str) -> Machine:
    """A preset by name, or a machine (profile) from a JSON file; raises
    PreconditionError saying what is wrong."""
    if name in PRESETS + PROFILES or not (name.endswith(".json") or Path(name).exists()):
        return preset(name)
    try:
        text = Path(name).read_text()
    except OSError as e:
        raise PreconditionError(f"cannot read {name}: {e.strerror}") from None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:  # RecursionError: nested too deep
        raise PreconditionError(f"{name} is not JSON: {e}") from None
    try:
        return machine_from_json(obj)
    except PreconditionError as e:
        raise PreconditionError(f"{name}: {e}") from None


def derive(base: str, reserve, scratch, types, label) -> Machine:
    """The profile: preset ``base`` with the given lists (None: the
    preset's own); validated like any machine object."""
    obj = dict(preset_json(base))
    obj["name"] = label or f"{base}-profile"
    obj["source"] = (f"a profile derived from the preset {base} by `verified machines "
                     f"derive`; the preset's source: {obj.get('source', '')}")
    if reserve is not None:
        obj["reserved"] = list(reserve)
    if scratch is not None:
        obj["scratch"] = list(scratch)
    if types is not None:
        have = obj.get("types", {})
        unknown = [t for t in types if t not in have]
        if unknown:
            raise PreconditionError(
                f"--types: {base} has no type {unknown[0]!r}; its types are "
                f"{', '.join(have) or 'none'}")
        obj["types"] = {t: have[t] for t in types}
    return machine_from_json(obj)


def run(args: argparse.Namespace) -> int:
    prog = "verified machines"

    def fail(msg: str) -> int:
        print(f"{prog}: error: {msg}", file=sys.stderr)
        return EXIT_BAD_INPUT

    derive_opts = [o for o, v in (("--reserve", args.reserve), ("--scratch", args.scratch),
                                  ("--types", args.types), ("--name", args.label),
                                  ("-o", args.out)) if v is not None]
    if args.action != "derive" and derive_opts:
        return fail(f"{derive_opts[0]} goes with `{prog} derive`")
    if args.action == "list":
        if args.name is not None:
            return fail(f"list takes no NAME (did you mean `{prog} show {args.name}`?)")
        for name in PRESETS:
            print(summary(preset(name)))
        print()
        print("profiles (a preset plus how one compiler uses it; `verified machines show NAME`"
              " prints one with its sources):")
        for name in PROFILES:
            print("\n".join(profile_summary(name)))
        return EXIT_OK
    if args.name is None:
        return fail(f"{args.action} needs a {'NAME or FILE' if args.action == 'show' else 'PRESET'}"
                    f", one of {', '.join(PRESETS + PROFILES)}")
    if args.action == "show":
        try:
            m = load(args.name)
        except PreconditionError as e:
            return fail(str(e))
        print(json.dumps(m.to_json(), indent=1))
        return EXIT_OK
    if args.out is None:
        return fail("derive needs -o FILE.json (or -o - for stdout)")
    try:
        if args.name not in PRESETS + PROFILES:
            preset(args.name)  # the unknown-machine message
        m = derive(args.name, args.reserve, args.scratch, args.types, args.label)
    except PreconditionError as e:
        return fail(str(e))
    text = json.dumps(m.to_json(), indent=1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
        return EXIT_OK
    try:
        Path(args.out).write_text(text)
    except OSError as e:
        return fail(f"cannot write {args.out}: {e.strerror}")
    return EXIT_OK

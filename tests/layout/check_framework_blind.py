#!/usr/bin/env python3
"""The framework names no experiment: src/framework/ (render/ included) is what every experiment
shares, so none of its code may name one. What an experiment alone knows (its record's section,
its chart colours, its NVTX ranges, its timeline) reaches the framework through the Experiment
interface, its descriptor and the report model (docs/architecture.md, "The framework is blind").

The experiments' names are those of src/experiments/registry.def (one per folder) and the record
kinds the folders make (the name an ExperimentDescriptor starts with, a string literal or a
constant `kSomethingExperiment` equal to one: staged-tune, fleet). Comments are prose and are not read.
In the code of every C++ file under src/framework/, it refuses:

  1. an `#include "experiments/..."`;
  2. a string literal equal to an experiment's name ("doctor", "staged-tune"), or starting with
     one and a slash ("sweep/ce", a gate's or an id's path);
  3. an identifier with an experiment's name as one of its words (doctor_timeline, DoctorTrace,
     kFleetExperiment, accel), split at underscores and where lower case turns upper. Names that
     are also plain words of the framework's own code are left to rules 1 and 2 only: GENERIC.

ALLOWED lists the string literals that equal a name by chance, file by file, each with why.

    check_framework_blind.py ROOT            # exit 1, naming each place, file:line
    check_framework_blind.py ROOT --names    # the names it looks for, and which are generic
"""
import os
import re
import sys

# The C++ lexer every checker shares (comments, literals, directives): cpp_text.py, beside this.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpp_text import strip  # noqa: E402

# Words that name an experiment and also something every experiment shares, so an identifier
# made of them says nothing: host_cpu (the machine's host), check_fields (a validation),
# StagedCopyOptions (the staged engine, src/transfer/, not the staged experiment), a sweep of
# sizes, the GPU's blocks, a data race, pinning memory (pin_problem, a plan's check of what it
# pins). Literals and includes still may not name them.
GENERIC = {"host", "check", "staged", "sweep", "blocks", "race", "pin"}

# (file under src/framework/, literal): why it names no experiment.
ALLOWED = {
    ("render/perfetto.cpp", "host"): "the Perfetto process holding the host's threads",
}

SOURCE = re.compile(r"\.(cpp|hpp|cc|h|cu|cuh|def|inc)$")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INCLUDE = re.compile(r'^\s*#\s*include\s*"experiments/', re.M)


def experiment_names(root):
    """The folder names of registry.def and the record kinds their folders make."""
    experiments = os.path.join(root, "src", "experiments")
    with open(os.path.join(experiments, "registry.def")) as f:
        text = strip(f.read())[0]
    names = set(re.findall(r"PINBENCH_EXPERIMENT\(\s*(\w+)\s*\)", text))
    constants = {}
    returned = []
    for folder, _, files in os.walk(experiments):
        for n in files:
            if not SOURCE.search(n):
                continue
            with open(os.path.join(folder, n), errors="replace") as f:
                body = f.read()
            for name, value in re.findall(r"\b(k\w*Experiment)\s*=\s*\"([^\"]+)\"", body):
                constants[name] = value
            # ExperimentDescriptor d{NAME, COMMAND, LABEL, NOUN}: the name comes first.
            returned += re.findall(r"\bExperimentDescriptor\s*\w*\s*\{\s*([^,}]+),", body)
    for value in returned:
        value = value.strip()
        if value.startswith('"') and value.endswith('"'):
            names.add(value[1:-1])
        elif value in constants:
            names.add(constants[value])
    return sorted(names)


def words(identifier):
    """doctor_timeline -> doctor, timeline; kFleetExperiment -> k, fleet, experiment."""
    out = []
    for part in identifier.split("_"):
        out += re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", part)
    return [w.lower() for w in out if w]


def check(root):
    names = experiment_names(root)
    by_word = {n for n in names if n not in GENERIC and "-" not in n}
    framework = os.path.join(root, "src", "framework")
    bad = []
    files = 0
    for folder, _, entries in os.walk(framework):
        for n in sorted(entries):
            if not SOURCE.search(n):
                continue
            files += 1
            path = os.path.join(folder, n)
            rel = os.path.relpath(path, framework)
            shown = os.path.relpath(path, root)
            with open(path, errors="replace") as f:
                text = f.read()
            code, literals = strip(text)
            for m in INCLUDE.finditer(text):  # the text: strip() empties the include's string
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{shown}:{line}: includes an experiment's file")
            for line, text in literals:
                for name in names:
                    if (text == name or text.startswith(name + "/")) and \
                            (rel, text) not in ALLOWED:
                        bad.append(f"{shown}:{line}: the string \"{text}\" names the "
                                   f"experiment {name}")
            for number, text in enumerate(code.split("\n"), 1):
                for token in IDENTIFIER.findall(text):
                    hit = sorted(by_word.intersection(words(token)))
                    if hit:
                        bad.append(f"{shown}:{number}: the identifier {token} names the "
                                   f"experiment {hit[0]}")
    return names, files, bad


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    names, files, bad = check(root)
    if "--names" in argv[2:]:
        for n in names:
            print(n + ("  (generic: literals and includes only)" if n in GENERIC else ""))
        return 0
    bad = list(dict.fromkeys(bad))  # a place named twice on one line is one place
    last = (f"check_framework_blind: {len(bad)} places in src/framework/ name an experiment "
            f"(docs/architecture.md, \"The framework is blind\")" if bad else
            f"check_framework_blind: {files} files of src/framework/ name none of the "
            f"{len(names)} experiments")
    print("\n".join(bad + [last]))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))

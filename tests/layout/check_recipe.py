#!/usr/bin/env python3
"""A new experiment is a folder and one registry line (docs/architecture.md, "How to add an
experiment"). This checks what that recipe rests on, without building the project again:

  1. the registry and the folders agree: every folder of src/experiments/ with an
     experiment.cmake has its PINBENCH_EXPERIMENT(NAME) line in registry.def, and every line
     its folder;
  2. CMake finds a folder by itself: CMakeLists.txt includes src/experiments/*/experiment.cmake
     by a glob and builds every src/**/*.help into the binary, and no other line of the build
     (CMakeLists.txt, cmake/) names an experiment's folder;
  3. the shared code reaches an experiment only through the registry: no file of src/ outside
     the experiments' folders (registry.def aside) includes a file of one, names its namespace
     (experiments::NAME), or holds a string literal that is a record kind's name (the names
     that are also plain words, GENERIC in check_framework_blind.py, aside) or starts with one
     and a slash; comments are prose and are not read;
  4. the smallest experiment the recipe makes (tests/layout/new_experiment/, its files as the
     recipe lists them) compiles as the build compiles its libraries: it is copied into a
     temporary src/experiments/example/, its experiment.cmake is read by the pinbench_experiment
     function of CMakeLists.txt itself, and registry.cpp and main.cpp (READERS, every file that
     includes registry.def) are copied beside a registry.def of two more lines, the example's
     and one with no folder; each library's files are then compiled as one unit (as the build
     batches pinbench_core's and pinbench_cli's; main.cpp with the commands) with the flags its
     files are compiled with (compile_commands.json; at -O0, without precompiled headers), and
     nm shows that no unit leaves a name of the example undefined, while the folder-less line
     leaves some (so registry.def was read, and those are what a line asks of a folder): the
     tool would link with nothing else changed.

    check_recipe.py ROOT BUILD CMAKE NM    # exit 1, naming each problem
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_framework_blind as blind  # noqa: E402  (the names, GENERIC)
from cpp_text import strip  # noqa: E402  (the C++ lexer every checker shares)

TEMPLATE = "example"  # the namespace and folder of tests/layout/new_experiment/
PROBE = "recipe_probe"  # a registry line with no folder
# The files that read registry.def (relative to src/) and the library whose flags compile them.
READERS = {"experiments/registry.cpp": "pinbench_core", "main.cpp": "pinbench_cli"}
KINDS = ("CUDA_FREE", "MEASURE", "COMMAND")
LIBRARY = {"CUDA_FREE": "pinbench_core", "MEASURE": "pinbench_experiments",
           "COMMAND": "pinbench_cli"}


def registry_names(root):
    with open(os.path.join(root, "src", "experiments", "registry.def")) as f:
        code = strip(f.read())[0]
    return re.findall(r"PINBENCH_EXPERIMENT\(\s*(\w+)\s*\)", code)


def folders(root):
    experiments = os.path.join(root, "src", "experiments")
    return sorted(n for n in os.listdir(experiments)
                  if os.path.isfile(os.path.join(experiments, n, "experiment.cmake")))


def check_registry(root):
    names, found = registry_names(root), folders(root)
    bad = [f"src/experiments/{n}/: a folder with an experiment.cmake and no "
           f"PINBENCH_EXPERIMENT({n}) in registry.def" for n in found if n not in names]
    bad += [f"src/experiments/registry.def: PINBENCH_EXPERIMENT({n}) has no folder "
            f"src/experiments/{n}/ with an experiment.cmake" for n in names if n not in found]
    return bad


def cmake_code(text):
    """CMake text without its # comments (a # inside a quoted argument is kept)."""
    out = []
    for line in text.split("\n"):
        kept, quoted = [], False
        for c in line:
            if c == '"':
                quoted = not quoted
            if c == "#" and not quoted:
                break
            kept.append(c)
        out.append("".join(kept))
    return "\n".join(out)


def check_build(root):
    bad = []
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        top = cmake_code(f.read())
    if not re.search(r"file\(\s*GLOB\s+\w+\s+(CONFIGURE_DEPENDS\s+)?"
                     r"\$\{CMAKE_SOURCE_DIR\}/src/experiments/\*/experiment\.cmake\s*\)", top):
        bad.append("CMakeLists.txt: no file(GLOB ... src/experiments/*/experiment.cmake): "
                   "a new folder would not be built")
    if not re.search(r"file\(\s*GLOB_RECURSE\s+\w+\s+(CONFIGURE_DEPENDS\s+)?"
                     r"\$\{CMAKE_SOURCE_DIR\}/src/\*\.help\s*\)", top):
        bad.append("CMakeLists.txt: no file(GLOB_RECURSE ... src/*.help): a new command's help "
                   "would not reach the binary")
    if not re.search(r"\bfunction\(\s*pinbench_experiment\b", top):
        bad.append("CMakeLists.txt: no function(pinbench_experiment) for experiment.cmake to call")
    names = folders(root)
    files = ["CMakeLists.txt"] + sorted(
        os.path.join("cmake", n) for n in os.listdir(os.path.join(root, "cmake"))
        if n.endswith((".cmake", ".in")))
    for rel in files:
        with open(os.path.join(root, rel)) as f:
            code = cmake_code(f.read())
        for number, line in enumerate(code.split("\n"), 1):
            for m in re.finditer(r"experiments/(\w+)\b", line):
                if m.group(1) in names:
                    bad.append(f"{rel}:{number}: names the folder of the experiment "
                               f"{m.group(1)}; experiment.cmake is the place for it")
    return bad


def shared_sources(root):
    """Every C++ file of src/ outside the experiments' folders, registry.def aside."""
    src = os.path.join(root, "src")
    own = {os.path.join(src, "experiments", n) for n in folders(root)}
    for folder, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if os.path.join(folder, d) not in own)
        for n in sorted(files):
            path = os.path.join(folder, n)
            if blind.SOURCE.search(n) and n != "registry.def":
                yield path


def check_shared_code(root):
    bad = []
    found = folders(root)
    kinds = blind.experiment_names(root)
    exact = [n for n in kinds if n not in blind.GENERIC]
    for path in shared_sources(root):
        shown = os.path.relpath(path, root)
        with open(path, errors="replace") as f:
            text = f.read()
        code, literals = strip(text)
        for m in re.finditer(r'^\s*#\s*include\s*"experiments/(\w+)/', text, re.M):
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{shown}:{line}: includes a file of the experiment {m.group(1)}")
        for number, line in enumerate(code.split("\n"), 1):
            for m in re.finditer(r"\bexperiments\s*::\s*(\w+)", line):
                if m.group(1) in found:
                    bad.append(f"{shown}:{number}: names the namespace of the experiment "
                               f"{m.group(1)}")
        for number, literal in literals:
            for name in kinds:
                if (name in exact and literal == name) or literal.startswith(name + "/"):
                    bad.append(f"{shown}:{number}: the string \"{literal}\" names the "
                               f"experiment {name}")
    return bad


def template_lists(cmake, root, folder):
    """{kind: [file]} as CMakeLists.txt's own pinbench_experiment() reads the experiment.cmake."""
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        top = f.read()
    m = re.search(r"^function\(pinbench_experiment\).*?^endfunction\(\)", top, re.M | re.S)
    if not m:
        raise RuntimeError("CMakeLists.txt: no function(pinbench_experiment) ... endfunction()")
    script = os.path.join(folder, "read_experiment.cmake")
    with open(script, "w") as f:
        f.write(m.group(0) + "\n")
        f.write(f'include("{os.path.join(folder, "experiment.cmake")}")\n')
        for kind in KINDS:
            f.write(f'get_property(files GLOBAL PROPERTY pinbench_{kind})\n'
                    f'message("{kind}=${{files}}")\n')
    run = subprocess.run([cmake, "-P", script], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("reading experiment.cmake: " + run.stderr.strip())
    lists = {}
    for line in run.stderr.splitlines():
        kind, _, files = line.partition("=")
        if kind in KINDS:
            lists[kind] = [f for f in files.split(";") if f]
    return lists


def compile_flags(build):
    """{library: the compile command of one of its C++ files, as arguments, and its folder}."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    flags = {}
    for e in entries:
        args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        if not e["file"].endswith((".cpp", ".cxx")) or "-x" in args:  # not a precompiled header
            continue
        output = e.get("output", args[args.index("-o") + 1] if "-o" in args else "")
        for library in LIBRARY.values():
            if f"/{library}.dir/" in "/" + output and library not in flags:
                flags[library] = (args, e["directory"])
    return flags


def compile_command(flags, source, output):
    """The command `flags` compiled its file with, for `source` into `output`: the same compiler,
    definitions, include paths, standard and warnings, the warnings errors; at -O0 and without
    the precompiled headers (made for the build's optimisation), to be quick."""
    args, directory = flags
    out = [args[0]]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c", "-MF", "-MT", "-MQ", "-include"):
            skip = True
            continue
        if a in ("-MD", "-MMD", "-Winvalid-pch") or re.fullmatch(r"-O\w*", a):
            continue
        out.append(a)
    return out + ["-O0", "-Werror", "-c", source, "-o", output], directory


def undefined(nm, obj, namespace):
    """The names in pinbench::experiments::NAMESPACE:: that the object uses and does not define,
    without the prefix."""
    run = subprocess.run([nm, "-C", "--undefined-only", obj], capture_output=True, text=True,
                         check=True)
    prefix = f"pinbench::experiments::{namespace}::"
    found = set()
    for line in run.stdout.splitlines():
        name = line.split(None, 1)[-1] if line.strip() else ""  # "U NAME"
        if name.startswith(prefix):
            found.add(name[len(prefix):])
    return found


def registry_readers(root):
    """The files of src/ that include registry.def, relative to src/."""
    src = os.path.join(root, "src")
    found = []
    for folder, dirs, files in os.walk(src):
        dirs.sort()
        for n in sorted(files):
            path = os.path.join(folder, n)
            if blind.SOURCE.search(n) and n != "registry.def":
                with open(path, errors="replace") as f:
                    if re.search(r'^\s*#\s*include\s*"experiments/registry\.def"', f.read(), re.M):
                        found.append(os.path.relpath(path, src))
    return found


def check_template(root, build, cmake, nm):
    template = os.path.join(root, "tests", "layout", "new_experiment")
    if TEMPLATE in folders(root) or PROBE in folders(root):
        return [f"src/experiments/{TEMPLATE}/ or {PROBE}/ exists: the test's names are taken"]
    readers = registry_readers(root)
    if sorted(readers) != sorted(READERS):
        return [f"registry.def is read by {', '.join(readers)}, and check_recipe.py compiles "
                f"{', '.join(READERS)} with the example: READERS should name every reader"]
    flags = compile_flags(build)
    missing = [k for k in ("pinbench_core", "pinbench_cli") if k not in flags]
    if missing:
        return [f"{build}/compile_commands.json: no C++ file of {', '.join(missing)}"]
    with tempfile.TemporaryDirectory(prefix="pinbench-recipe-") as tmp:
        experiments = os.path.join(tmp, "experiments")
        folder = os.path.join(experiments, TEMPLATE)
        shutil.copytree(template, folder)
        with open(os.path.join(root, "src", "experiments", "registry.def")) as f:
            registry = f.read()
        # One more line with its folder, and one with none: what the latter leaves undefined is
        # what a registry line asks of a folder.
        with open(os.path.join(experiments, "registry.def"), "w") as f:
            f.write(registry + f"PINBENCH_EXPERIMENT({TEMPLATE})\nPINBENCH_EXPERIMENT({PROBE})\n")
        # The readers copied beside the new registry.def, so that their own
        # #include "experiments/registry.def" finds it before src/'s.
        units = {library: [] for library in LIBRARY.values()}
        for rel, library in READERS.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
            shutil.copy(os.path.join(root, "src", rel), os.path.join(tmp, rel))
            units[library].append(os.path.join(tmp, rel))
        for kind, files in template_lists(cmake, root, folder).items():
            units[LIBRARY[kind]] += [p for p in files if p.endswith((".cpp", ".cc", ".cxx"))]
        # Each library's files as one unit (as the build batches core's and cli's), with the
        # flags its files are compiled with; main.cpp with the commands, whose flags add one
        # definition to its own.
        running = []
        for library, files in units.items():
            if not files:
                continue
            if library not in flags:
                return [f"{build}/compile_commands.json: no C++ file of {library}"]
            unit = os.path.join(tmp, library + ".cpp")
            with open(unit, "w") as f:
                f.write("".join(f'#include "{p}"\n' for p in files))
            command, directory = compile_command(flags[library], unit, unit + ".o")
            command.insert(1, "-I" + tmp)  # first: experiments/example/ and the new registry.def
            what = ", ".join(os.path.relpath(p, tmp) for p in files)
            running.append((what, unit + ".o", subprocess.Popen(
                command, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True)))
        bad = []
        objects = []
        for what, obj, p in running:
            out = p.communicate()[0]
            if p.returncode != 0:
                bad.append(f"{what}: does not compile with the example added:\n{out}")
            objects.append((what, obj))
        if bad:
            return bad
        asked = set()
        for what, obj in objects:
            asked |= undefined(nm, obj, PROBE)
            for name in sorted(undefined(nm, obj, TEMPLATE)):
                bad.append(f"{what}: needs pinbench::experiments::{TEMPLATE}::{name}, which the "
                           f"recipe's files do not define (docs/architecture.md, \"How to add an "
                           f"experiment\")")
        if not asked:
            bad.append(f"{', '.join(READERS)}: ask nothing of a registry line without a folder: "
                       f"do they still read registry.def?")
        return bad


def main(argv):
    if len(argv) != 5:
        print(__doc__)
        return 2
    root, build, cmake, nm = argv[1:]
    bad = check_registry(root) + check_build(root) + check_shared_code(root)
    bad += check_template(root, build, cmake, nm)
    last = (f"check_recipe: {len(bad)} problems for the recipe (docs/architecture.md, "
            f"\"How to add an experiment\")" if bad else
            f"check_recipe: {len(folders(root))} experiments, each a folder and a registry "
            f"line; the example compiles with nothing else changed")
    print("\n".join(bad + [last]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

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
     function of CMakeLists.txt itself, each of its files is compiled with the flags its library's
     files are compiled with (compile_commands.json), and so are registry.cpp and main.cpp over a
     registry.def of one more line; then every symbol of the example that those two need is one
     its files define (nm), so the tool would link with nothing else changed.

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
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "scripts")]
import check_framework_blind as blind  # noqa: E402  (the names, GENERIC)
from cpp_text import strip  # noqa: E402  (the C++ lexer every checker shares)

TEMPLATE = "example"  # the namespace and folder of tests/layout/new_experiment/
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
    """{library or "main": the compile command of one of its C++ files, as arguments}."""
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
        if e["file"].endswith("/src/main.cpp") and "/pinbench.dir/" in "/" + output:
            flags["main"] = (args, e["directory"])
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


def symbols(nm, objects, which):
    run = subprocess.run([nm, "-C", which] + objects, capture_output=True, text=True, check=True)
    prefix = f"pinbench::experiments::{TEMPLATE}::"
    found = set()
    for line in run.stdout.splitlines():
        # "ADDRESS TYPE NAME", "U NAME"; a file's name and a blank line between files
        parts = line.split(None, 2 if which == "--defined-only" else 1)
        name = parts[-1] if len(parts) > 1 else ""
        if name.startswith(prefix):
            found.add(name)
    return found


def check_template(root, build, cmake, nm):
    template = os.path.join(root, "tests", "layout", "new_experiment")
    if TEMPLATE in folders(root):
        return [f"src/experiments/{TEMPLATE}/ exists: the template's name is taken"]
    flags = compile_flags(build)
    missing = [k for k in list(LIBRARY.values()) + ["main"] if k not in flags and
               k != "pinbench_experiments"]
    if missing:
        return [f"{build}/compile_commands.json: no C++ file of {', '.join(missing)}"]
    with tempfile.TemporaryDirectory(prefix="pinbench-recipe-") as tmp:
        experiments = os.path.join(tmp, "experiments")
        folder = os.path.join(experiments, TEMPLATE)
        shutil.copytree(template, folder)
        with open(os.path.join(root, "src", "experiments", "registry.def")) as f:
            registry = f.read()
        with open(os.path.join(experiments, "registry.def"), "w") as f:
            f.write(registry + f"PINBENCH_EXPERIMENT({TEMPLATE})\n")
        # Copies beside the new registry.def, so their own #include "experiments/registry.def"
        # finds it before src/'s.
        shutil.copy(os.path.join(root, "src", "experiments", "registry.cpp"), experiments)
        shutil.copy(os.path.join(root, "src", "main.cpp"), tmp)
        lists = template_lists(cmake, root, folder)
        jobs = []  # (what, command, directory, object)
        for kind, files in lists.items():
            for path in files:
                if path.endswith((".cpp", ".cc", ".cxx")):
                    jobs.append((os.path.relpath(path, tmp), flags[LIBRARY[kind]], path))
        if not jobs:
            return ["tests/layout/new_experiment/experiment.cmake names no C++ file"]
        jobs.append(("experiments/registry.cpp", flags["pinbench_core"],
                     os.path.join(experiments, "registry.cpp")))
        jobs.append(("main.cpp", flags["main"], os.path.join(tmp, "main.cpp")))
        running = []
        for i, (what, f, source) in enumerate(jobs):
            command, directory = compile_command(f, source, os.path.join(tmp, f"{i}.o"))
            # The temporary folder first: "experiments/example/..." and the new registry.def.
            command.insert(1, "-I" + tmp)
            running.append((what, subprocess.Popen(command, cwd=directory, stdout=subprocess.PIPE,
                                                   stderr=subprocess.STDOUT, text=True)))
        bad = []
        for what, p in running:
            out = p.communicate()[0]
            if p.returncode != 0:
                bad.append(f"{what}: does not compile with the example added:\n{out}")
        if bad:
            return bad
        template_objects = [os.path.join(tmp, f"{i}.o") for i in range(len(jobs) - 2)]
        defined = symbols(nm, template_objects, "--defined-only")
        for i, what in ((len(jobs) - 2, "experiments/registry.cpp"), (len(jobs) - 1, "main.cpp")):
            needed = symbols(nm, [os.path.join(tmp, f"{i}.o")], "--undefined-only")
            if not needed:
                bad.append(f"{what}: asks nothing of the example over a registry.def that names "
                           f"it: does it still read registry.def?")
            for name in sorted(needed - defined):
                bad.append(f"{what}: needs {name}, which the recipe's files do not define "
                           f"(docs/architecture.md, \"How to add an experiment\")")
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

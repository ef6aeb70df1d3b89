"""pinbench's own PEP 517 build backend, standard library only.

`pip install ./python` builds the wheel here, offline and in a fresh venv with nothing but pip:
no setuptools, no wheel package, nothing to download. The wheel holds the package and the C
library it loads (libpinbench_c.so, from a CMake build of pinbench), so the installed package
needs neither the source tree nor an environment variable. The library is taken from
$PINBENCH_LIBRARY, else from the build folder beside this one (../build/, where `make build` and
`cmake --preset default` put it); without one the build stops and says how to make it.
CMake calls build_wheel too, to leave a wheel in build/python/ (docs/python.md).
"""
import base64
import hashlib
import io
import os
import re
import sysconfig
import tarfile
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)  # python/
_LIBRARY = "libpinbench_c.so"


def _project():
    """name, version, description and requires-python from pyproject.toml's [project] table."""
    with open(os.path.join(_ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    fields = dict(re.findall(r'^([a-z-]+)\s*=\s*"([^"]*)"', table, re.M))
    return fields["name"], fields["version"], fields.get("description", ""), fields.get(
        "requires-python", "")


def _library():
    env = os.environ.get("PINBENCH_LIBRARY")
    candidates = [env] if env else []
    candidates.append(os.path.join(_ROOT, os.pardir, "build", _LIBRARY))
    for path in candidates:
        if os.path.isfile(path):
            return os.path.abspath(path)
    raise RuntimeError(
        "pinbench: no %s to put in the wheel (looked at %s). Build pinbench first (make build, "
        "or cmake --preset default && cmake --build --preset default) or set PINBENCH_LIBRARY "
        "to the library's path." % (_LIBRARY, ", ".join(candidates)))


def _platform_tag():
    return re.sub(r"[^a-zA-Z0-9]", "_", sysconfig.get_platform())


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _package_files():
    package = os.path.join(_ROOT, "pinbench")
    for entry in sorted(os.listdir(package)):
        if entry.endswith(".py") and entry != "_paths.py":
            with open(os.path.join(package, entry), "rb") as f:
                yield "pinbench/" + entry, f.read()


# --- PEP 517 hooks ------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version, description, requires_python = _project()
    tag = "py3-none-" + _platform_tag()
    dist_info = "%s-%s.dist-info" % (name, version)
    files = list(_package_files())
    with open(_library(), "rb") as f:
        files.append(("pinbench/" + _LIBRARY, f.read()))
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n" % (
        name, version, description)
    if requires_python:
        metadata += "Requires-Python: %s\n" % requires_python
    wheel = ("Wheel-Version: 1.0\nGenerator: pinbench_build\nRoot-Is-Purelib: false\n"
             "Tag: %s\n" % tag)
    files.append((dist_info + "/METADATA", metadata.encode()))
    files.append((dist_info + "/WHEEL", wheel.encode()))
    record = [_record_line(n, d) for n, d in files] + [dist_info + "/RECORD,,"]
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    filename = "%s-%s-%s.whl" % (name, version, tag)
    os.makedirs(wheel_directory, exist_ok=True)
    path = os.path.join(wheel_directory, filename)
    tmp = path + ".part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if n.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
    os.replace(tmp, path)  # whole or not at all, as every pinbench output
    return filename


def build_sdist(sdist_directory, config_settings=None):
    name, version, _, _ = _project()
    base = "%s-%s" % (name, version)
    filename = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for rel in ["pyproject.toml", "_build/pinbench_build.py"] + [
                n for n, _ in _package_files()]:
            tar.add(os.path.join(_ROOT, rel), arcname=base + "/" + rel)
        pkg_info = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)).encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return filename

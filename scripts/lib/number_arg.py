"""The one reader of the counts the scripts take from their command line or environment (HOSTS,
ROWS, GPUS_PER_HOST, --most): decimal digits only, as pinbench reads its own options, so "010" is
ten and "0x10", "-1", "1e3", "inf", "nan", "1_000" and "" are refused; never below the script's
minimum nor above its maximum. A refusal is one line on stderr, "SCRIPT: NAME ...", and exit 2.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    import number_arg
    hosts = number_arg.whole(sys.argv[3], "HOSTS", minimum=1)
    rows = number_arg.from_env("ROWS", default=1000)
    parser.add_argument("--most", type=number_arg.argparse_whole(0))
"""
import argparse
import os
import re
import sys

_DECIMAL = re.compile(r"-?[0-9]+", re.ASCII)


def check(text, name, minimum=0, maximum=None):
    """`text` as an int, or ValueError with the line that says why (without the script's name)."""
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        low = f"{minimum} or more" if maximum is None else f"{minimum} to {maximum}"
        raise ValueError(f"{name} {text!r} is not a whole number in decimal digits ({low})")
    value = int(text, 10)
    if value < minimum:
        raise ValueError(f"{name} {text!r} is below {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} {text!r} is above {maximum}")
    return value


def _refuse(message):
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "script"
    print(f"{script}: {message}", file=sys.stderr)
    sys.exit(2)


def whole(text, name, minimum=0, maximum=None):
    """`text` (an argument) as an int from `minimum` to `maximum`; else one line and exit 2."""
    try:
        return check(text, name, minimum, maximum)
    except ValueError as e:
        _refuse(str(e))


def from_env(name, default, minimum=0, maximum=None):
    """The environment variable `name` as whole() reads it, or `default` when it is not set."""
    text = os.environ.get(name)
    return default if text is None else whole(text, name, minimum, maximum)


def argparse_whole(minimum=0, maximum=None):
    """A `type=` for argparse that reads as whole() does (argparse then exits 2 with its line)."""

    def read(text):
        try:
            return check(text, "value", minimum, maximum)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return read

"""The one argument checker every class and function of the package goes through before it
hands a value to C: ctypes cuts an int to its field's width without a word (a device of 2**32
becomes device 0), C reads a path up to its first NUL (another file), and int() truncates a float
(an offset of 0.9 becomes 0). So an int is an int (not a bool, not a float) within the range of
its C type, a real number is finite, and a path holds no NUL byte; each refusal is one
ArgumentError (a ValueError) that names the argument (docs/python.md)."""

import ctypes
import math
import numbers
import os

from ._lib import ArgumentError


def largest(ctype):
    """The largest value a ctypes integer type holds: 2**31 - 1 for c_int, 2**64 - 1 for a
    64-bit c_size_t."""
    bits = 8 * ctypes.sizeof(ctype)
    signed = ctype(-1).value == -1
    return (1 << (bits - 1 if signed else bits)) - 1


def whole(value, what, ctype, minimum=0, noun="a count"):
    """`value` as an int that C's `ctype` holds, at least `minimum`. An int subclass or a NumPy
    integer is an int; a bool, a float (0.9, or 1.0) or anything else is refused, never
    truncated."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ArgumentError(f"pinbench: {what} must be {noun} >= {minimum}, not {value!r}")
    value = int(value)
    if value < minimum:
        raise ArgumentError(f"pinbench: {what} must be {noun} >= {minimum}, not {value}")
    top = largest(ctype)
    if value > top:
        raise ArgumentError(f"pinbench: {what} is {value}, more than its largest, {top}")
    return value


def real(value, what, minimum, noun="a number", maximum=None):
    """`value` as a finite float of at least `minimum` (and at most `maximum`, where given): a
    bool, NaN or an infinity is refused."""
    bounds = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(f"pinbench: {what} must be {noun} {bounds}, not {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < minimum or (maximum is not None and value > maximum):
        raise ArgumentError(f"pinbench: {what} must be {noun} {bounds}, not {value!r}")
    return value


def path(value, what, error=ArgumentError):
    """`value` (a str, bytes or os.PathLike) as the bytes C opens. A NUL byte is refused: C would
    stop there and open another file."""
    try:
        encoded = os.fsencode(os.fspath(value))
    except TypeError:
        raise error(f"pinbench: {what} must be a path, not a {type(value).__name__}") from None
    if b"\0" in encoded:
        raise error(
            f"pinbench: {what} {os.fsdecode(encoded)!r} holds a NUL byte, which no file name has"
        )
    return encoded


def switch(value, what):
    """`value` as a bool: True or False (NumPy's bool too). An int, 0 and 1 included, is refused:
    a count passed where a switch belongs is a mistake, not a truth value."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise ArgumentError(f"pinbench: {what} must be True or False, not {value!r}")

"""What a copy's two ends are: an address, a byte count, a dtype and shape, and whether the
memory is on a GPU, read from whichever protocol the object speaks, without importing NumPy,
torch or CuPy. In order: __cuda_array_interface__ (CuPy, torch CUDA tensors, Numba),
__array_interface__ (NumPy), DLPack (torch CPU tensors, and anything else that exports it), the
buffer protocol (bytes-like objects)."""

import ctypes
import struct

from ._lib import ArgumentError


class Side:
    """One end of a copy. `keep` holds whatever must stay alive while the copy runs."""

    def __init__(self, what, ptr, nbytes, dtype, shape, on_gpu, readonly, keep):
        self.what = what  # how the object was read, for messages
        self.ptr = ptr
        self.nbytes = nbytes
        self.dtype = dtype  # "f4", "u1", "bf2", ...
        self.shape = tuple(shape)
        self.on_gpu = on_gpu
        self.readonly = readonly
        self.keep = keep


def _type_name(obj):
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}" if t.__module__ != "builtins" else t.__qualname__


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _check_contiguous(name, obj, shape, strides, itemsize):
    """Raises unless `strides` (bytes, or None) are C-contiguous for `shape`."""
    if strides is None:
        return
    expected = itemsize
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expected:
            raise ArgumentError(
                f"pinbench: the {name} ({_type_name(obj)} of shape {tuple(shape)}, strides "
                f"{tuple(strides)}) is not contiguous; pass a contiguous one "
                f"(.contiguous(), numpy.ascontiguousarray)"
            )
        expected *= dim


def _typestr_dtype(name, obj, typestr):
    # "|O" (NumPy's object arrays) has no size after its kind: looked at before the size is.
    kind = typestr[1:2] if isinstance(typestr, str) else ""
    if kind == "O":
        raise ArgumentError(
            f"pinbench: the {name} ({_type_name(obj)}) holds Python objects, not bytes to copy"
        )
    if len(typestr) < 3 or typestr[0] not in "<>|=" or not typestr[2:].isdigit():
        raise ArgumentError(
            f"pinbench: the {name} ({_type_name(obj)}) has a type string pinbench cannot read: "
            f"{typestr!r}"
        )
    size = int(typestr[2:])
    order = "" if typestr[0] in "<|=" or size == 1 else ">"
    return order + kind + str(size), size


def _from_interface(name, obj, iface, on_gpu, what):
    shape = tuple(iface["shape"])
    dtype, itemsize = _typestr_dtype(name, obj, iface["typestr"])
    ptr, readonly = iface["data"] if iface.get("data") is not None else (0, False)
    if iface.get("mask") is not None:
        raise ArgumentError(f"pinbench: the {name} ({_type_name(obj)}) is masked")
    strides = iface.get("strides")
    _check_contiguous(name, obj, shape, strides, itemsize)
    return Side(what, int(ptr), _prod(shape) * itemsize, dtype, shape, on_gpu, bool(readonly), obj)


# DLPack's C structs (dlpack.h, the unversioned capsule every exporter offers).
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_CODES = {0: "i", 1: "u", 2: "f", 4: "bf", 5: "c", 6: "b"}

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(name, obj):
    try:
        capsule = obj.__dlpack__()
    except Exception as e:  # the exporter's own reason (requires grad, read-only, ...)
        raise ArgumentError(f"pinbench: the {name} ({_type_name(obj)}) cannot be exported: {e}")
    # The capsule is not consumed: its destructor frees the export once we drop it.
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    dev = t.device.device_type
    if dev not in (_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED):
        raise ArgumentError(
            f"pinbench: the {name} ({_type_name(obj)}) is on DLPack device type {dev}, "
            f"neither host memory nor a CUDA device"
        )
    if t.dtype.lanes != 1 or t.dtype.bits % 8 != 0:
        raise ArgumentError(f"pinbench: the {name} ({_type_name(obj)}) has a packed dtype")
    itemsize = t.dtype.bits // 8
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim))  # DLPack counts items
    _check_contiguous(name, obj, shape, strides, itemsize)
    code = _DL_CODES.get(t.dtype.code, f"dl{t.dtype.code}-")
    return Side(
        "DLPack",
        (t.data or 0) + t.byte_offset,
        _prod(shape) * itemsize,
        code + str(itemsize),
        shape,
        dev in (_DL_CUDA, _DL_CUDA_MANAGED),
        False,
        (obj, capsule),
    )


_FORMATS = {"?": "b1", "c": "S1", "e": "f2", "f": "f4", "d": "f8", "Zf": "c8", "Zd": "c16"}


def _from_buffer(name, obj):
    try:
        view = memoryview(obj)
    except TypeError:
        raise ArgumentError(
            f"pinbench: the {name} is a {_type_name(obj)}, which pinbench cannot read: pass a "
            f"NumPy array, a torch tensor, a CuPy array or a bytes-like object"
        ) from None
    if not view.c_contiguous:
        raise ArgumentError(f"pinbench: the {name} ({_type_name(obj)} buffer) is not contiguous")
    fmt = view.format.lstrip("@=<")
    if fmt in _FORMATS:
        dtype = _FORMATS[fmt]
    elif len(fmt) == 1 and fmt in "bhilqnBHILQN":
        dtype = ("u" if fmt.isupper() else "i") + str(struct.calcsize(fmt))
    else:
        dtype = "buffer:" + view.format
    ptr = _buffer_address(view) if view.nbytes else 0
    return Side("buffer", ptr, view.nbytes, dtype, view.shape or (view.nbytes,), False,
                view.readonly, (obj, view))


class _PyBuffer(ctypes.Structure):
    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.c_void_p),
        ("strides", ctypes.c_void_p),
        ("suboffsets", ctypes.c_void_p),
        ("internal", ctypes.c_void_p),
    ]


_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(_PyBuffer)]
_PYBUF_RECORDS_RO = 0x001C  # strides and format, read-only allowed


def _buffer_address(view):
    """The address of a buffer, read-only ones included (ctypes' from_buffer takes only writable
    ones). The memoryview kept beside it keeps the exporter's memory where it is."""
    b = _PyBuffer()
    if _get_buffer(view, ctypes.byref(b), _PYBUF_RECORDS_RO) != 0:
        raise ArgumentError("pinbench: cannot read the buffer's address")
    try:
        return b.buf or 0
    finally:
        _release_buffer(ctypes.byref(b))


def _typed(name, obj, side):
    """The interfaces' typestr has no word for some dtypes (torch's bfloat16 is "<V2", raw
    bytes); where the object also exports DLPack, its dtype code names them."""
    if side.dtype.lstrip(">").startswith("V") and hasattr(obj, "__dlpack__"):
        try:
            return _from_dlpack(name, obj)
        except ArgumentError:
            pass
    return side


def _masked(obj):
    """Whether `obj` is a NumPy masked array, whose __array_interface__ is its data's alone."""
    return any(
        c.__name__ == "MaskedArray" and c.__module__.startswith("numpy")
        for c in type(obj).__mro__
    )


def describe(name, obj):
    """The Side of `obj`; `name` is "source" or "destination", for messages."""
    if _masked(obj):
        raise ArgumentError(
            f"pinbench: the {name} ({_type_name(obj)}) is masked; pass its data (.filled() or "
            f".data) if the masked values may be copied"
        )
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        cai = None
    except Exception as e:
        # torch refuses the interface for some tensors (bfloat16 ones) that DLPack describes
        # well, and for a tensor that requires grad, which DLPack refuses too.
        if hasattr(obj, "__dlpack__"):
            try:
                return _from_dlpack(name, obj)
            except ArgumentError:
                pass
        raise ArgumentError(f"pinbench: the {name} ({_type_name(obj)}): {e}") from None
    if cai is not None:
        return _typed(name, obj, _from_interface(name, obj, cai, True, "__cuda_array_interface__"))
    try:
        ai = obj.__array_interface__
    except AttributeError:
        ai = None
    if ai is not None:
        return _typed(name, obj, _from_interface(name, obj, ai, False, "__array_interface__"))
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(name, obj)
    return _from_buffer(name, obj)

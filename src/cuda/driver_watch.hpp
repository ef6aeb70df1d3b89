// Whether a process of a user's program asked to load the CUDA driver. The libraries pinbench
// loads into every process of a program (doctor's inject/, accel's interpose/) compile
// driver_watch.cpp in, which defines the process's dlopen: it notes a load of the driver's
// library (libcuda.so, by any path and version) and jumps to the C library's dlopen with the
// caller's return address in place, so the loader searches the caller's run paths as it would
// without it. The CUDA runtime, static or shared, loads the driver this way at its first call, and
// a program linked to libcuda has it from its start, so a process seen to its end without having
// asked made no CUDA call, whether or not the machine has a driver. Only system headers: no CUDA,
// and nothing of pinbench's, since it lives in someone else's process.
#pragma once

namespace pinbench::cuda {

// Whether this process asked to load the CUDA driver since it started (or since it was forked),
// or had it loaded from its start.
bool driver_asked();

// Whether the CUDA driver's library is loaded in this process now.
bool driver_loaded();

// In a forked child: it has asked for nothing yet itself.
void driver_watch_forked();

// `fn` is called once, the first time the process asks, in the thread that asks, before the load.
// It must do no more than a signal handler may (set a flag, add to a counter).
void on_driver_asked(void (*fn)());

}  // namespace pinbench::cuda

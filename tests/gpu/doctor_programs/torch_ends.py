# Python processes that end each way doctor must survive (tests/gpu/test_doctor_gpu.cpp): each
# makes pageable copies of 1 MiB to the device with .to("cuda", non_blocking=True) and then ends
# as its mode says. Usage: torch_ends.py MODE
#   os_exit   4 copies, then os._exit(0): no exit handler runs
#   workers   2 multiprocessing workers (fork; the parent never touches CUDA), 5 copies each;
#             a worker ends with os._exit, as multiprocessing's do
#   exec      4 copies, then os.execv of this script as "after-exec", which makes 2
import multiprocessing
import os
import sys

import torch

MIB = 1 << 20


def copies(n):
    x = torch.ones(MIB, dtype=torch.uint8)
    for _ in range(n):
        x.to("cuda", non_blocking=True)
        torch.cuda.synchronize()


def worker():
    copies(5)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "os_exit":
        copies(4)
        os._exit(0)
    if mode == "workers":
        context = multiprocessing.get_context("fork")
        workers = [context.Process(target=worker) for _ in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return max(w.exitcode for w in workers)
    if mode == "exec":
        copies(4)
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "after-exec"])
    if mode == "after-exec":
        copies(2)
        return 0
    print("usage: torch_ends.py os_exit|workers|exec", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

# pin_memory() of odd sizes: PyTorch's caching host allocator page-locks each block rounded up to
# a power of two (5 MiB as 8, 9 MiB as 16, 17 MiB as 32), one copy to the device each; doctor
# must report the 25 MiB never copied as pinned-unused, at the pin_memory() line.
import torch

MiB = 1 << 20
pinned = [torch.ones(n * MiB, dtype=torch.uint8).pin_memory() for n in (5, 9, 17)]
for t in pinned:
    d = t.to("cuda", non_blocking=True)
torch.cuda.synchronize()

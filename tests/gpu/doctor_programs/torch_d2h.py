# Copies to the host in a loop: .cpu() copies into pageable memory and waits (PyTorch's
# cudaMemcpyAsync, then cudaStreamSynchronize); .to("cpu", non_blocking=True) copies into memory
# PyTorch page-locks for it. doctor must flag the first loop (line 8) and not the second.
import torch

x = torch.ones(1 << 20, dtype=torch.float32, device="cuda")  # 4 MiB on the GPU
for _ in range(10):
    y = x.cpu()
for _ in range(10):
    z = x.to("cpu", non_blocking=True)
torch.cuda.synchronize()

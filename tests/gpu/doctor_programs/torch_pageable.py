# Ten pageable host-to-device copies of 4 MiB with non_blocking=True: doctor must flag all ten.
import torch

x = torch.ones(1 << 20, dtype=torch.float32)  # 4 MiB, pageable
for _ in range(10):
    y = x.to("cuda", non_blocking=True)
torch.cuda.synchronize()

#!/usr/bin/env python3
"""Writes a large synthetic `nsys stats` export for the CSV reader's benchmark.

  scripts/bench/gen-nsys-trace.py ROWS DIR [PREFIX]

DIR/PREFIX_cuda_gpu_trace.csv gets ROWS rows in the nsys 2024 layout (21 columns, as in
tests/data/nsys/v2024): host-to-device and device-to-host copies from pageable and pinned
memory, and a kernel with a long demangled name every eighth row. DIR/PREFIX_cuda_api_trace.csv
gets ROWS calls. The figures are made up; only the shape and the size matter (about 150 and
70 bytes a row). tests/bench/bench_nsys.cpp reads them; docs/methodology.md has the result.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import number_arg  # noqa: E402


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    rows = number_arg.whole(sys.argv[1], "ROWS", minimum=1)
    out = sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) > 3 else "bench"
    os.makedirs(out, exist_ok=True)
    kernel = '"void scale_copy<float>(const float *, float *, unsigned long, float, float)"'
    with open(os.path.join(out, prefix + "_cuda_gpu_trace.csv"), "w") as f:
        f.write("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,"
                "StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,"
                "Device,Ctx,GreenCtx,Strm,Name\n")
        lines = []
        for i in range(rows):
            start = 1000000000 + i * 2000
            if i % 8 == 7:
                lines.append(f"{start},{1500 + i % 97},{i + 1},2048,1,1,256,1,1,16,0.000,0.000,"
                             f",,,,NVIDIA H200 (0),1,,7,{kernel}\n")
            else:
                h2d = i % 2 == 0
                kind = "Pinned" if i % 4 < 2 else "Pageable"
                src, dst = (kind, "Device") if h2d else ("Device", kind)
                name = "[CUDA memcpy Host-to-Device]" if h2d else "[CUDA memcpy Device-to-Host]"
                lines.append(f"{start},{1000 + i % 89},{i + 1},,,,,,,,,,1.049,10485.760,{src},"
                             f"{dst},NVIDIA H200 (0),1,,7,{name}\n")
            if len(lines) == 10000:
                f.writelines(lines)
                lines = []
        f.writelines(lines)
    with open(os.path.join(out, prefix + "_cuda_api_trace.csv"), "w") as f:
        f.write('"Start (ns)","Duration (ns)","Name","Result","CorrID","Pid","Tid","T-Pri",'
                '"Thread Name"\n')
        lines = []
        names = ["cudaMemcpyAsync_v3020", "cudaStreamSynchronize_v3020", "cudaLaunchKernel_v7000"]
        for i in range(rows):
            lines.append(f"{999999000 + i * 2000},{900 + i % 53},{names[i % 3]},0,{i + 1},4242,"
                         f"4242,20,bench\n")
            if len(lines) == 10000:
                f.writelines(lines)
                lines = []
        f.writelines(lines)


if __name__ == "__main__":
    main()

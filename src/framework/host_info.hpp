// What the host says about itself and about a PCI device, from /proc and sysfs. No CUDA here:
// the CUDA layer supplies the bus id and fills the rest of MachineInfo.
#pragma once

#include <cstdint>
#include <string>

#include "framework/record.hpp"

namespace pinbench {

// "32.0 GT/s PCIe" -> 5. 0 when the text names no known rate.
int pcie_gen_from_speed(const std::string& speed);

// Reads current/max link speed and width of the device at `bus_id` ("0000:1b:00.0", any case)
// under `sysfs_root` (normally "/sys"). Fields stay 0/empty where sysfs has nothing.
PcieLink read_pcie_link(const std::string& bus_id, const std::string& sysfs_root = "/sys");

// The device's NUMA node, or -1 when sysfs does not say.
int read_numa_node(const std::string& bus_id, const std::string& sysfs_root = "/sys");

// The CPUs closest to the device, as sysfs spells them ("0-15,32-47"), or "" when it does not say.
std::string read_local_cpulist(const std::string& bus_id, const std::string& sysfs_root = "/sys");

// The host's name (gethostname), or "" when it has none: fleet reports key GPUs by it.
std::string host_name();

// A link's rate for one direction in GB/s after line encoding (8b/10b to gen 2, 128b/130b for
// gens 3 to 5, 242B/256B flits for gen 6) times `width` lanes; 0 for an unknown generation.
// Gen 5 x16: 63.0 GB/s. The health check's default floors are shares of it.
double pcie_link_gb_per_s(int gen, int width);

std::string host_cpu_model();          // "model name" of /proc/cpuinfo
std::uint64_t host_memory_bytes();     // MemTotal
std::uint64_t host_available_bytes();  // MemAvailable
std::string os_description();          // "Linux 6.1.0 x86_64"
std::string nvidia_driver_release();   // "580.159.04", or "" when not readable

// The host's part of a record's machine section, GPU or not: its name, CPU model and logical
// CPUs, memory, OS and the NVIDIA driver's release where /proc names one.
void describe_host(MachineInfo& m);

}  // namespace pinbench

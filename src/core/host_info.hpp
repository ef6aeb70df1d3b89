// What the host says about itself and about a PCI device, from /proc and sysfs. No CUDA here:
// the CUDA layer supplies the bus id and fills the rest of MachineInfo.
#pragma once

#include <cstdint>
#include <string>

#include "core/record/record.hpp"

namespace pinbench {

// "32.0 GT/s PCIe" -> 5. 0 when the text names no known rate.
int pcie_gen_from_speed(const std::string& speed);

// Reads current/max link speed and width of the device at `bus_id` ("0000:1b:00.0", any case)
// under `sysfs_root` (normally "/sys"). Fields stay 0/empty where sysfs has nothing.
PcieLink read_pcie_link(const std::string& bus_id, const std::string& sysfs_root = "/sys");

// The device's NUMA node, or -1 when sysfs does not say.
int read_numa_node(const std::string& bus_id, const std::string& sysfs_root = "/sys");

std::string host_cpu_model();          // "model name" of /proc/cpuinfo
std::uint64_t host_memory_bytes();     // MemTotal
std::uint64_t host_available_bytes();  // MemAvailable
std::string os_description();          // "Linux 6.1.0 x86_64"
std::string nvidia_driver_release();   // "580.159.04", or "" when not readable

}  // namespace pinbench

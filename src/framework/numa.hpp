// Placing host buffers on the GPU's NUMA node: the calling thread is pinned to that node's CPUs
// before it allocates and first touches memory, so Linux's first-touch policy puts the pages
// there. And asking the kernel where a page actually landed.
#pragma once

#include <string>
#include <vector>

namespace pinbench {

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Throws InputError on malformed text.
std::vector<int> parse_cpulist(const std::string& text);

// CPUs of NUMA node `node` from sysfs; empty when the node is unknown.
std::vector<int> node_cpus(int node, const std::string& sysfs_root = "/sys");

// Restricts the calling thread to `cpus`. Returns false (and changes nothing) when it cannot.
bool bind_thread_to_cpus(const std::vector<int>& cpus);

// Restores the calling thread's affinity to every CPU it was allowed at process start.
void unbind_thread();

// NUMA node of the page holding `p` (which must have been touched), or -1 when the kernel will
// not say (no NUMA support, or a container that hides it).
int page_node(const void* p);

// The host's NUMA nodes with memory, as sysfs lists them (/sys/devices/system/node/has_memory,
// else its node* folders); 0 when sysfs does not say.
int host_numa_nodes(const std::string& sysfs_root = "/sys");

// Makes the calling thread's new pages come from `node` only (set_mempolicy MPOL_BIND, through
// syscall(): no libnuma), so a buffer it allocates and first touches lies there. False (and
// nothing changed) when the kernel refuses. reset_thread_memory_node() returns to the default.
bool bind_thread_memory_to_node(int node);
void reset_thread_memory_node();

}  // namespace pinbench

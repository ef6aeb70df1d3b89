#include <gtest/gtest.h>

#include <filesystem>

#include "framework/host_info.hpp"
#include "fixtures.hpp"

namespace pinbench {
namespace {

TEST(HostInfo, PcieGenerationFromSpeed) {
  EXPECT_EQ(pcie_gen_from_speed("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(pcie_gen_from_speed("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(pcie_gen_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_gen_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_gen_from_speed("64.0 GT/s PCIe"), 6);
  EXPECT_EQ(pcie_gen_from_speed("Unknown"), 0);
  EXPECT_EQ(pcie_gen_from_speed(""), 0);
  EXPECT_EQ(pcie_gen_from_speed("7.0 GT/s"), 0);
}

TEST(HostInfo, ReadsLinkAndNumaNodeFromSysfs) {
  const std::string root = test::temp_dir();
  const std::string dev = root + "/bus/pci/devices/0000:1b:00.0";
  std::filesystem::create_directories(dev);
  test::write_file(dev + "/current_link_speed", "16.0 GT/s PCIe\n");
  test::write_file(dev + "/max_link_speed", "32.0 GT/s PCIe\n");
  test::write_file(dev + "/current_link_width", "8\n");
  test::write_file(dev + "/max_link_width", "16\n");
  test::write_file(dev + "/numa_node", "1\n");
  // CUDA spells bus ids in upper case; sysfs in lower case.
  const PcieLink link = read_pcie_link("0000:1B:00.0", root);
  EXPECT_EQ(link.current_gen, 4);
  EXPECT_EQ(link.max_gen, 5);
  EXPECT_EQ(link.current_width, 8);
  EXPECT_EQ(link.max_width, 16);
  EXPECT_EQ(link.current_speed, "16.0 GT/s PCIe");
  EXPECT_EQ(read_numa_node("0000:1B:00.0", root), 1);
}

TEST(HostInfo, MissingSysfsEntriesLeaveFieldsUnknown) {
  const std::string root = test::temp_dir();
  const PcieLink link = read_pcie_link("0000:00:06.0", root);
  EXPECT_EQ(link.current_gen, 0);
  EXPECT_EQ(link.max_width, 0);
  EXPECT_EQ(read_numa_node("0000:00:06.0", root), -1);
}

TEST(HostInfo, HostDescriptionIsFilledIn) {
  EXPECT_GT(host_memory_bytes(), 0u);
  EXPECT_FALSE(host_cpu_model().empty());
  EXPECT_NE(os_description().find("Linux"), std::string::npos);
}

}  // namespace
}  // namespace pinbench

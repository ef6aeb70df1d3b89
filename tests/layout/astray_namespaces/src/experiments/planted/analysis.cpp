// Planted for layout.namespaces_finds_the_astray: an experiment's code in the framework's
// namespace, and a kernel in cuda's.
namespace pinbench {
int planted_analysis() {
  return 1;
}
}  // namespace pinbench

namespace pinbench::cuda {
int planted_kernel() {
  return 2;
}
}  // namespace pinbench::cuda

// Followed: the folder's own namespace, one nested in it, an anonymous one, an alias.
namespace pinbench::experiments::planted {
namespace findings {
int found() {
  return 3;
}
}  // namespace findings
namespace {
int hidden() {
  return 4;
}
}  // namespace
namespace k = findings;
}  // namespace pinbench::experiments::planted

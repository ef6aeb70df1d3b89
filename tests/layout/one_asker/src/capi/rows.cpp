// Planted for check_one_asker.py: the C ABI asking the registry itself (one place).
namespace pinbench {
int kinds() {
  return static_cast<int>(all_experiments().size());
}
}  // namespace pinbench

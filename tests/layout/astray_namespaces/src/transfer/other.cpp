// Planted: transfer code in the framework's namespace, with no public header of its name.
namespace pinbench {
int planted_other() {
  return 7;
}
}  // namespace pinbench

// Planted: a CLI file whose code is in the framework's namespace, beside code of cli's own in the
// older nested form (followed).
namespace pinbench {
int planted_option() {
  return 5;
}
namespace cli {
int followed_option() {
  return 8;
}
}  // namespace cli
}  // namespace pinbench

namespace pinbench {
namespace cli {
int also_followed() {
  return 9;
}
}  // namespace cli
}  // namespace pinbench

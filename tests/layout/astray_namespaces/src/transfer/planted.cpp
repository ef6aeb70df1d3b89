// Planted: a file named after a public header may define it in pinbench (followed); a transfer
// file with none may not (other.cpp).
namespace pinbench {
int planted_public() {
  return 6;
}
}  // namespace pinbench

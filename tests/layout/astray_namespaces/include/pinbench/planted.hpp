// Planted: the public header's own namespace (followed).
#pragma once
namespace pinbench {
int planted_public();
}  // namespace pinbench

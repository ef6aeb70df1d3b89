// Prints what runpath_loader.cpp's library found through its own run path; exits 0 when it found
// it, 1 when dlopen did not search that library's run paths.
#include <cstdio>

extern "C" int pinbench_load_by_run_path();

int main() {
  const int answer = pinbench_load_by_run_path();
  std::printf("answer %d\n", answer);
  return answer == 42 ? 0 : 1;
}

// Must not compile with cmake/no-cuda first on the include path (tests/CMakeLists.txt).
#include <cuda_runtime.h>

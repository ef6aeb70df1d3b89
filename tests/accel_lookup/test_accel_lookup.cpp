// accel's lookup of the driver's entry points (src/experiments/accel/interpose/driver_entry.cpp),
// without a GPU: this binary runs with accel's library preloaded (LD_PRELOAD, as `pinbench
// accel` sets it) and opens a stand-in driver (fake_driver.cpp, soname libcuda.so.1) by the path
// in PINBENCH_FAKE_DRIVER, then looks its functions up as a program with the runtime linked
// statically does: dlsym of cuGetProcAddress_v2, then cuGetProcAddress for each name.
#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using GetProc = int (*)(const char*, void**, int, std::uint64_t, int*);
using HtoD = int (*)(std::uint64_t, const void*, std::size_t);

struct Driver {
  void* handle = nullptr;
  GetProc get_proc = nullptr;
  int* calls = nullptr;
  std::size_t* last_bytes = nullptr;
};

const Driver& driver() {
  static const Driver d = [] {
    Driver out;
    out.handle = dlopen(PINBENCH_FAKE_DRIVER, RTLD_NOW | RTLD_LOCAL);
    if (out.handle == nullptr) return out;
    out.get_proc = reinterpret_cast<GetProc>(dlsym(out.handle, "cuGetProcAddress_v2"));
    out.calls = static_cast<int*>(dlsym(out.handle, "fake_calls"));
    out.last_bytes = static_cast<std::size_t*>(dlsym(out.handle, "fake_last_bytes"));
    return out;
  }();
  return d;
}

// The stand-in's own definition of `name`, which accel must not hand out for its copies.
void* own(const char* name) {
  // dladdr of a function found by a handle lookup names the object that defines it.
  void* fn = dlsym(driver().handle, name);
  Dl_info info{};
  if (fn == nullptr || dladdr(fn, &info) == 0) return nullptr;
  return std::string(info.dli_fname).find("fake_driver") != std::string::npos ? fn : nullptr;
}

void* lookup(const char* symbol, int version, std::uint64_t flags) {
  void* fn = nullptr;
  int status = -1;
  EXPECT_EQ(driver().get_proc(symbol, &fn, version, flags, &status), 0) << symbol;
  EXPECT_EQ(status, 0) << symbol;
  return fn;
}

class AccelLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(dlsym(RTLD_DEFAULT, "cuGetProcAddress_v2"), nullptr)
        << "accel's library is not preloaded (LD_PRELOAD)";
    ASSERT_NE(driver().handle, nullptr)
        << "cannot open the stand-in driver " << PINBENCH_FAKE_DRIVER;
    ASSERT_NE(driver().get_proc, nullptr);
  }
};

// dlsym on the driver's handle answers accel's lookup, not the driver's own.
TEST_F(AccelLookup, DlsymOfTheLookupOnTheDriversHandleIsAccels) {
  EXPECT_NE(reinterpret_cast<void*>(driver().get_proc), own("cuGetProcAddress_v2"));
  EXPECT_EQ(reinterpret_cast<void*>(driver().get_proc), dlsym(RTLD_DEFAULT, "cuGetProcAddress_v2"));
}

// The copy functions are accel's, by version and stream form; a second lookup of a name gives
// the same function; other names, and the first versions, are the driver's own.
TEST_F(AccelLookup, CopyFunctionsAreReplacedAndOthersHandedThrough) {
  void* htod = lookup("cuMemcpyHtoD", 12000, 0);
  EXPECT_NE(htod, own("cuMemcpyHtoD_v2"));
  EXPECT_EQ(htod, dlsym(RTLD_DEFAULT, "cuMemcpyHtoD_v2"));
  EXPECT_EQ(lookup("cuMemcpyHtoD", 12000, 0), htod);
  void* htod_ptds = lookup("cuMemcpyHtoD", 12000, 2);
  EXPECT_EQ(htod_ptds, dlsym(RTLD_DEFAULT, "cuMemcpyHtoD_v2_ptds"));
  EXPECT_NE(htod_ptds, htod);
  EXPECT_EQ(lookup("cuMemcpyAsync", 13000, 2), dlsym(RTLD_DEFAULT, "cuMemcpyAsync_ptsz"));
  EXPECT_EQ(lookup("cuMemcpyAsync", 13000, 1), dlsym(RTLD_DEFAULT, "cuMemcpyAsync"));
  EXPECT_EQ(lookup("cuMemcpyHtoD", 3000, 0), own("cuMemcpyHtoD"));  // 32-bit pointers: left
  EXPECT_EQ(lookup("cuMemAlloc", 12000, 0), own("cuMemAlloc_v2"));
  EXPECT_EQ(lookup("cuGetProcAddress", 12000, 0), reinterpret_cast<void*>(driver().get_proc));
  void* none = reinterpret_cast<void*>(1);
  int status = -1;
  EXPECT_EQ(driver().get_proc("cuNoSuchThing", &none, 12000, 0, &status), 500);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(status, 1);
}

// dlsym by the exported names: the copy functions are accel's, everything else the driver's.
TEST_F(AccelLookup, DlsymOfCopyFunctionsIsAccelsAndOfOthersTheDrivers) {
  EXPECT_EQ(dlsym(driver().handle, "cuMemcpyDtoH_v2"), dlsym(RTLD_DEFAULT, "cuMemcpyDtoH_v2"));
  EXPECT_NE(dlsym(driver().handle, "cuMemcpyDtoH_v2"), own("cuMemcpyDtoH_v2"));
  EXPECT_NE(own("cuMemAlloc_v2"), nullptr);
  EXPECT_EQ(dlsym(driver().handle, "fake_calls"), static_cast<void*>(driver().calls));
  EXPECT_EQ(dlsym(driver().handle, "cuNoSuchThing"), nullptr);
  EXPECT_NE(dlerror(), nullptr);  // the C library's own answer, with its error
  // RTLD_NEXT still means "after the caller" (this binary): the C library's strlen.
  EXPECT_EQ(dlsym(RTLD_NEXT, "strlen"), dlsym(RTLD_DEFAULT, "strlen"));
}

// A copy through accel's function that the engine cannot take (too small, or memory CUDA does
// not know: this driver knows none) reaches the driver's own function, once, with the
// program's arguments.
TEST_F(AccelLookup, ACopyAccelPassesOnReachesTheDriverOnce) {
  auto htod = reinterpret_cast<HtoD>(lookup("cuMemcpyHtoD", 12000, 0));
  std::vector<char> host(8 << 20, 1);
  for (const std::size_t bytes : {std::size_t{4096}, host.size()}) {
    const int before = driver().calls[0];
    EXPECT_EQ(htod(0x1000, host.data(), bytes), 0);
    EXPECT_EQ(driver().calls[0], before + 1) << bytes;
    EXPECT_EQ(*driver().last_bytes, bytes);
  }
}

// A 2D copy whose rows do not touch passes on to the driver's own function, once.
TEST_F(AccelLookup, AStridedTwoDimensionalCopyReachesTheDriverOnce) {
  using Copy2D = int (*)(const CUDA_MEMCPY2D*);
  auto copy = reinterpret_cast<Copy2D>(dlsym(driver().handle, "cuMemcpy2D_v2"));
  ASSERT_NE(reinterpret_cast<void*>(copy), own("cuMemcpy2D_v2"));
  std::vector<char> host(4 << 20, 1);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = host.data();
  c.srcPitch = 8192;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = 0x100000;
  c.dstPitch = 8192;
  c.WidthInBytes = 4096;
  c.Height = 512;
  const int before = driver().calls[7];
  EXPECT_EQ(copy(&c), 0);
  EXPECT_EQ(driver().calls[7], before + 1);
}

}  // namespace

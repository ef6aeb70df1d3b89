// The findings of issue 23 on hand-made traces, each present and absent: page-locked memory held
// beyond use, page-locking on the critical path, NUMA placement (one node: not judged; two: a
// record with cases at both placements), small-copy storms, a synchronisation after every copy,
// device-to-host copies into pageable memory asked for asynchronously; the ranking and the
// headline; machines that read pageable memory through the host's page tables; the calibration's
// plan; the record's new machine fields, good and bad.
#include <cuda.h>
#include <driver_types.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "doctor_fixtures.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/compare.hpp"
#include "experiments/doctor/findings/cuda_errors.hpp"
#include "experiments/doctor/trace.hpp"
#include "experiments/lesson/analysis.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/numa.hpp"
#include "framework/record.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::doctor;
using namespace experiments::lesson;
namespace {

using namespace test;  // the hand-made traces: doctor_fixtures.hpp

constexpr std::uint64_t kPool = 0x7f0000000000;

// A page-locked copy of `bytes` to the device from `ptr` at `t0` us, 100 us on the engine and 5 us
// on the host; its A line names the pointer and the direction, and keeps no site (as the
// collector writes a copy from a range the program page-locked).
std::string pinned_copy(unsigned corr, std::uint64_t t0, std::uint64_t ptr, std::uint64_t bytes,
                        int pid = 10, int tid = 77, const std::string& s = kNone) {
  return api("R", "copy_async", corr, t0, t0 + 5, s, "cudaMemcpyAsync_v3020", ptr, bytes, pid, tid,
             'h', 'P') +
         memcpy_line(5000 + corr, corr, 1, bytes, 2, 3, t0 + 5, t0 + 105, 13, pid);
}

std::string alloc(unsigned corr, std::uint64_t t0, std::uint64_t t1, std::uint64_t ptr,
                  std::uint64_t bytes, const std::string& s = kSiteA, int node = -1) {
  return api("R", "alloc", corr, t0, t1, s, "cudaHostAlloc_v3020", ptr, bytes, 10, 77, '-', '-',
             node);
}

std::string free_call(unsigned corr, std::uint64_t t0, std::uint64_t ptr) {
  return api("R", "free", corr, t0, t0 + 2, kNone, "cudaFreeHost_v3020", ptr);
}

DoctorAnalysis analysed(const std::string& events, bool rates = true) {
  const DoctorTrace t = parse_doctor_events(events);
  return analyse_doctor(record_with(t, rates), t);
}

bool not_judged(const DoctorAnalysis& a, const std::string& id, const std::string& says) {
  return std::any_of(a.not_judged.begin(), a.not_judged.end(), [&](const DoctorNotJudged& n) {
    return n.id == id && n.reason.find(says) != std::string::npos;
  });
}

// --- pinned-unused ----------------------------------------------------------------------------

TEST(DoctorPinnedUnused, APoolOfWhichCopiesUseATenthIsHeldBeyondUse) {
  std::string text = head() + site(kSiteA, "make_pool") + alloc(1, 10, 20, kPool, 64 * kMiB);
  for (unsigned i = 0; i < 5; ++i) text += pinned_copy(10 + i, 100 + 200 * i, kPool, 4 * kMiB);
  text += free_call(30, 5000, kPool);
  const DoctorAnalysis a = analysed(text);
  const DoctorFinding* f = find(a, "pinned-unused");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 1u);
  EXPECT_EQ(f->counted, "allocations");
  EXPECT_EQ(f->bytes, 60 * kMiB);
  EXPECT_DOUBLE_EQ(f->host_ms, 0.010);
  EXPECT_FALSE(f->lost_ms);  // memory, not time
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_EQ(f->sites[0].where, "make_pool (app+0x1234)");
  EXPECT_EQ(f->sites[0].bytes, 60 * kMiB);
  EXPECT_NE(f->evidence[0].find("page-locked 64 MiB"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("reached 4 MiB"), std::string::npos) << f->evidence[0];
  // 64 MiB and 4 MiB are both powers of two: nothing says a rounding allocator did it.
  for (const std::string& e : f->evidence) EXPECT_EQ(e.find("power of two"), std::string::npos);
  EXPECT_NE(f->fix.find("size each allocation"), std::string::npos);  // native program
}

TEST(DoctorPinnedUnused, TheHighWaterMarkCountsAndRoundingIsNamed) {
  // Two 8 MiB blocks (a rounding allocator's answer to 5 MiB and 4.5 MiB): copies from an offset
  // reach 5 MiB of the first, 4.5 MiB of the second.
  std::string text = head() + site(kSiteA, "pin") + alloc(1, 10, 20, kPool, 8 * kMiB) +
                     alloc(2, 30, 40, kPool + 8 * kMiB, 8 * kMiB);
  text += pinned_copy(10, 100, kPool, 4 * kMiB);
  text += pinned_copy(11, 300, kPool + 4 * kMiB, kMiB);  // high-water 5 MiB
  text += pinned_copy(12, 500, kPool + 8 * kMiB, 4 * kMiB + kMiB / 2);
  const DoctorAnalysis a = analysed(text);
  const DoctorFinding* f = find(a, "pinned-unused");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 2u);
  EXPECT_EQ(f->bytes, 16 * kMiB - 5 * kMiB - (4 * kMiB + kMiB / 2));
  EXPECT_TRUE(std::any_of(f->evidence.begin(), f->evidence.end(), [](const std::string& e) {
    return e.find("rounds every block to the next power of two") != std::string::npos;
  }));
}

TEST(DoctorPinnedUnused, AbsentWhereTheCopiesUseWhatIsHeld) {
  // 4 MiB held, 4 MiB copied.
  std::string text = head() + site(kSiteA, "pin") + alloc(1, 10, 20, kPool, 4 * kMiB);
  text += pinned_copy(10, 100, kPool, 4 * kMiB);
  EXPECT_EQ(find(analysed(text), "pinned-unused"), nullptr);
  // 64 MiB held, 61 MiB reached: 3 MiB (5%) is under the share.
  text = head() + site(kSiteA, "pin") + alloc(1, 10, 20, kPool, 64 * kMiB) +
         pinned_copy(10, 100, kPool + 60 * kMiB, kMiB);
  EXPECT_EQ(find(analysed(text), "pinned-unused"), nullptr);
  // 2 MiB held, 1.5 MiB reached: 25% but under 1 MiB.
  text = head() + site(kSiteA, "pin") + alloc(1, 10, 20, kPool, 2 * kMiB) +
         pinned_copy(10, 100, kPool, kMiB + kMiB / 2);
  EXPECT_EQ(find(analysed(text), "pinned-unused"), nullptr);
}

TEST(DoctorPinnedUnused, CopiesAfterTheFreeOrInAnotherProcessDoNotCount) {
  // The allocation's only copies come after its free (the address reused by malloc) or from
  // another process: no copy lay in it, so it is not judged, and nothing is found.
  std::string text = head(10) + head(11) + site(kSiteA, "pin") +
                     alloc(1, 10, 20, kPool, 64 * kMiB) + free_call(2, 50, kPool) +
                     pinned_copy(10, 100, kPool, 4 * kMiB) +
                     pinned_copy(11, 200, kPool, 4 * kMiB, 11);
  const DoctorAnalysis a = analysed(text);
  EXPECT_EQ(find(a, "pinned-unused"), nullptr);
  // With one copy inside its life, it is judged on that copy alone.
  text += pinned_copy(12, 30, kPool, 4 * kMiB);
  const DoctorAnalysis judged = analysed(text);
  const DoctorFinding* f = find(judged, "pinned-unused");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->bytes, 60 * kMiB);
}

TEST(DoctorPinnedUnused, ARecordWhoseCopiesNameNoPointerIsNotJudged) {
  // A record made before the collector read copies' pointers.
  std::string text = head() + site(kSiteA, "pin") + alloc(1, 10, 20, kPool, 64 * kMiB);
  text += api("R", "copy_async", 10, 100, 105, kNone, "cudaMemcpyAsync_v3020") +
          memcpy_line(5010, 10, 1, 4 * kMiB, 2, 3, 105, 205);
  const DoctorAnalysis a = analysed(text);
  EXPECT_EQ(find(a, "pinned-unused"), nullptr);
  EXPECT_TRUE(not_judged(a, "pinned-unused", "names its host pointer"));
}

// --- pinning-critical-path ---------------------------------------------------------------------

TEST(DoctorPinningCriticalPath, ASlowAllocationAfterTheCopiesBeganIsNamed) {
  std::string text = head() + site(kSiteA, "setup") + site(kSiteB, "grow_pool");
  text += alloc(1, 10, 3010, kPool, kMiB);  // setup, 3 ms: not on the path
  text += pinned_copy(10, 4000, kPool, kMiB);
  text += alloc(2, 5000, 8500, kPool + 64 * kMiB, 256 * kMiB, kSiteB);  // 3.5 ms, on the path
  text += pinned_copy(11, 9000, kPool + 64 * kMiB, 256 * kMiB);
  const DoctorAnalysis a = analysed(text);
  const DoctorFinding* f = find(a, "pinning-critical-path");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 1u);
  EXPECT_EQ(f->bytes, 256 * kMiB);
  EXPECT_DOUBLE_EQ(f->host_ms, 3.5);
  ASSERT_TRUE(f->lost_ms);
  EXPECT_DOUBLE_EQ(*f->lost_ms, 3.5);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_EQ(f->sites[0].where, "grow_pool (app+0x1234)");
  EXPECT_NE(f->evidence[1].find("1 call took over 1 ms: 256 MiB (cudaHostAlloc) at grow_pool "
                                "(app+0x1234) in 3.500 ms"),
            std::string::npos)
      << f->evidence[1];
}

TEST(DoctorPinningCriticalPath, AbsentAtSetupForFastCallsAndForChurn) {
  // Slow, but before the first copy.
  std::string text = head() + site(kSiteA, "setup") + alloc(1, 10, 5010, kPool, 256 * kMiB) +
                     pinned_copy(10, 6000, kPool, 256 * kMiB);
  EXPECT_EQ(find(analysed(text), "pinning-critical-path"), nullptr);
  // After the first copy, but 0.2 ms in all.
  text = head() + site(kSiteA, "grow") + pinned_copy(10, 100, 0x1000, 4096) +
         alloc(1, 200, 400, kPool, kMiB);
  EXPECT_EQ(find(analysed(text), "pinning-critical-path"), nullptr);
  // Four allocate/free pairs of 0.5 ms each after the first copy: alloc-churn's, not this one's.
  text = head() + site(kSiteA, "churn") + pinned_copy(10, 100, 0x1000, 4096);
  for (unsigned i = 0; i < 4; ++i) {
    text += alloc(20 + i, 1000 * (i + 1), 1000 * (i + 1) + 500, kPool, kMiB);
    text += free_call(30 + i, 1000 * (i + 1) + 600, kPool);
  }
  const DoctorAnalysis a = analysed(text);
  EXPECT_NE(find(a, "alloc-churn"), nullptr);
  EXPECT_EQ(find(a, "pinning-critical-path"), nullptr);
}

// --- pinning-failed ------------------------------------------------------------------------------

// A blocking pageable copy of `bytes` to the device from `ptr` at `t0` us: 1 ms on the host, 500 us
// on the copy engine (2 MiB in 500 us is 4.19 GB/s), made at site `s`.
std::string pageable_copy(unsigned corr, std::uint64_t t0, std::uint64_t ptr, std::uint64_t bytes,
                          int pid = 10, const std::string& s = kSiteB) {
  return api("R", "copy", corr, t0, t0 + 1000, s, "cudaMemcpy_v3020", ptr, bytes, pid, 77, 'h',
             'p') +
         memcpy_line(5000 + corr, corr, 1, bytes, 1, 3, t0 + 100, t0 + 600, 13, pid);
}

// A cudaHostRegister of 8 MiB at kPool that returned `status`, the driver's word on the range
// after it `locked` (0: a line without it), at site kSiteA.
std::string registration(unsigned corr, std::uint64_t t0, int status, char locked,
                         std::uint64_t bytes = 8 * kMiB) {
  return api("R", "register", corr, t0, t0 + 50, kSiteA, "cudaHostRegister_v4000", kPool, bytes, 10,
             77, '-', '-', -1, status, locked);
}

TEST(DoctorPinningFailed, ARegistrationThatFailedAndTheCopiesFromItsRange) {
  std::string text = head() + head(11) + site(kSiteA, "register_pool") + site(kSiteB, "upload");
  text += pageable_copy(1, 10, kPool, 2 * kMiB);  // before the registration: not its
  text += registration(2, 100, 1, 'U');
  for (unsigned i = 0; i < 4; ++i)
    text += pageable_copy(10 + i, 1000 + 2000 * i, kPool + i * 2 * kMiB, 2 * kMiB);
  text += pageable_copy(20, 10000, kPool + 8 * kMiB, 2 * kMiB);  // past the range
  text += pageable_copy(21, 12000, kPool, 2 * kMiB, 11);         // another process
  const DoctorAnalysis a = analysed(text);
  const DoctorFinding* f = find(a, "pinning-failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 4u);
  EXPECT_EQ(f->bytes, 8 * kMiB);
  EXPECT_DOUBLE_EQ(f->host_ms, 4.0);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_EQ(f->sites[0].where, "register_pool (app+0x1234)");  // where the fix goes
  EXPECT_EQ(f->sites[0].count, 4u);
  EXPECT_EQ(f->evidence[0],
            "cudaHostRegister of 8 MiB at register_pool (app+0x1234) returned error 1 "
            "(cudaErrorInvalidValue); then 4 copy calls (8 MiB) went from or to that range as "
            "pageable memory");
  // 2 MiB in 500 us on the engine, against the record's 40 GB/s page-locked.
  EXPECT_NE(f->evidence[1].find("they ran at 4.19 GB/s on the copy engine, against 40.00 GB/s "
                                "page-locked (host to device at 4 MiB"),
            std::string::npos)
      << f->evidence[1];
  EXPECT_NE(f->evidence[1].find("9.5x slower"), std::string::npos) << f->evidence[1];
  // Each blocking call held the host 1 ms; from page-locked memory, 2 MiB at 40 GB/s.
  ASSERT_TRUE(f->lost_ms);
  EXPECT_NEAR(*f->lost_ms, 4 * (1.0 - 2.0 * kMiB / 40e6), 1e-9);
  EXPECT_NE(f->fix.find("Check each page-locking call's result"), std::string::npos);
  // The failed range is no page-locked range: pinned-unused and over-pinning do not count it.
  EXPECT_EQ(find(a, "pinned-unused"), nullptr);
  EXPECT_EQ(a.peak_pinned_bytes, 0u);
  // Without rates: no estimate, and the copies' own rate said alone.
  const DoctorAnalysis bare = analysed(text, false);
  const DoctorFinding* g = find(bare, "pinning-failed");
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->lost_ms);
  EXPECT_NE(g->evidence[1].find("4.19 GB/s on the copy engine; the record has no page-locked rate"),
            std::string::npos)
      << g->evidence[1];
}

TEST(DoctorPinningFailed, ASilentFailureAndAnAllocationThatFailedInALineWithoutTheState) {
  // A registration that returned success while the driver did not call its range page-locked.
  std::string text = head() + site(kSiteA, "register_pool") + site(kSiteB, "upload") +
                     registration(1, 100, 0, 'U') + pageable_copy(2, 1000, kPool + kMiB, 2 * kMiB);
  const DoctorAnalysis silent = analysed(text);
  const DoctorFinding* f = find(silent, "pinning-failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 1u);
  EXPECT_NE(f->evidence[0].find("returned success, but the driver did not call the range "
                                "page-locked after it"),
            std::string::npos)
      << f->evidence[0];
  // A driver allocation that failed, written before the collector read the state: no range, so
  // the pageable copies its process made after it, of at most its size, are named.
  text = head() + site(kSiteA, "alloc_pool") + site(kSiteB, "upload") +
         api("D", "alloc", 1, 100, 150, kSiteA, "cuMemHostAlloc", 0, 4 * kMiB, 10, 77, '-', '-', -1,
             2) +
         pageable_copy(2, 1000, 0x10000, kMiB) + pageable_copy(3, 3000, 0x20000, 8 * kMiB);
  const DoctorAnalysis a = analysed(text);
  f = find(a, "pinning-failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 1u);  // the 8 MiB copy is larger than the allocation asked
  EXPECT_EQ(f->bytes, kMiB);
  EXPECT_EQ(f->evidence[0],
            "cuMemHostAlloc of 4 MiB at alloc_pool (app+0x1234) returned error 2 "
            "(CUDA_ERROR_OUT_OF_MEMORY); then 1 copy call (1 MiB) of at most its size went "
            "from or to pageable memory in that process");
}

TEST(DoctorPinningFailed, AbsentWhereTheRangeWasLockedAnywayOrNoCopyWentPageable) {
  // Registered twice: the second fails, but the range is page-locked (the first registration),
  // and its copies are page-locked.
  std::string text = head() + site(kSiteA, "register_pool") + registration(1, 100, 0, 'L') +
                     registration(2, 200, 712, 'L') + pinned_copy(10, 1000, kPool, 2 * kMiB);
  DoctorAnalysis a = analysed(text);
  EXPECT_EQ(find(a, "pinning-failed"), nullptr);
  // A registration that failed, and no copy from its range after it.
  text = head() + site(kSiteA, "register_pool") + site(kSiteB, "upload") +
         registration(1, 100, 1, 'U') + pageable_copy(2, 1000, 0x10000, 2 * kMiB);
  a = analysed(text);
  EXPECT_EQ(find(a, "pinning-failed"), nullptr);
  // A registration of a line written before the state was read, and success: page-locked.
  text = head() + site(kSiteA, "register_pool") + registration(1, 100, 0, 0) +
         pinned_copy(10, 1000, kPool, 8 * kMiB);
  a = analysed(text);
  EXPECT_EQ(find(a, "pinning-failed"), nullptr);
  EXPECT_EQ(a.peak_pinned_bytes, 8 * kMiB);
}

// The table of error names holds the numbers CUDA's headers give them.
TEST(DoctorPinningFailed, ErrorNamesAreTheHeadersNumbers) {
#define PINBENCH_NAMED(e) \
  { #e, static_cast < int>(e) }
  const std::map<std::string, int> runtime = {PINBENCH_NAMED(cudaErrorInvalidValue),
                                              PINBENCH_NAMED(cudaErrorMemoryAllocation),
                                              PINBENCH_NAMED(cudaErrorInitializationError),
                                              PINBENCH_NAMED(cudaErrorCudartUnloading),
                                              PINBENCH_NAMED(cudaErrorNoDevice),
                                              PINBENCH_NAMED(cudaErrorInvalidDevice),
                                              PINBENCH_NAMED(cudaErrorOperatingSystem),
                                              PINBENCH_NAMED(cudaErrorHostMemoryAlreadyRegistered),
                                              PINBENCH_NAMED(cudaErrorHostMemoryNotRegistered),
                                              PINBENCH_NAMED(cudaErrorNotPermitted),
                                              PINBENCH_NAMED(cudaErrorNotSupported),
                                              PINBENCH_NAMED(cudaErrorSystemNotReady),
                                              PINBENCH_NAMED(cudaErrorUnknown)};
  const std::map<std::string, int> driver = {
      PINBENCH_NAMED(CUDA_ERROR_INVALID_VALUE),
      PINBENCH_NAMED(CUDA_ERROR_OUT_OF_MEMORY),
      PINBENCH_NAMED(CUDA_ERROR_NOT_INITIALIZED),
      PINBENCH_NAMED(CUDA_ERROR_DEINITIALIZED),
      PINBENCH_NAMED(CUDA_ERROR_NO_DEVICE),
      PINBENCH_NAMED(CUDA_ERROR_INVALID_DEVICE),
      PINBENCH_NAMED(CUDA_ERROR_OPERATING_SYSTEM),
      PINBENCH_NAMED(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED),
      PINBENCH_NAMED(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
      PINBENCH_NAMED(CUDA_ERROR_NOT_PERMITTED),
      PINBENCH_NAMED(CUDA_ERROR_NOT_SUPPORTED),
      PINBENCH_NAMED(CUDA_ERROR_SYSTEM_NOT_READY),
      PINBENCH_NAMED(CUDA_ERROR_UNKNOWN)};
#undef PINBENCH_NAMED
  for (const findings::CudaErrorName& e : findings::kCudaErrorNames) {
    ASSERT_EQ(runtime.count(e.runtime), 1u) << e.runtime;
    EXPECT_EQ(runtime.at(e.runtime), e.code) << e.runtime;
    ASSERT_EQ(driver.count(e.driver), 1u) << e.driver;
    EXPECT_EQ(driver.at(e.driver), e.code) << e.driver;
  }
  EXPECT_EQ(findings::cuda_error_words(true, 712),
            "error 712 (cudaErrorHostMemoryAlreadyRegistered)");
  EXPECT_EQ(findings::cuda_error_words(false, 57), "error 57");
}

// --- small-copy-storm --------------------------------------------------------------------------

// The small-copy calibration's three cases for copies of `each` bytes, per copy: one call each,
// in one batch, as one contiguous copy.
void add_small_cases(RunRecord& r, std::uint64_t each, double each_us, double batch_us,
                     double contiguous_us) {
  const std::uint64_t count = kSmallCopyBatch;
  for (const auto& [method, us] :
       {std::make_pair(kEachMethod, each_us), std::make_pair(kBatchMethod, batch_us),
        std::make_pair(kContiguousMethod, contiguous_us)}) {
    Case c = rate_case("h2d", "pinned", each * count, us * count / 1000, us * count / 1000);
    c.part = kSmallCopyPart;
    c.method = method;
    c.gate = "doctor/small/h2d/" + method;
    c.extra["chunks"] = count;
    r.cases.push_back(c);
    r.gates.push_back({c.gate, true, "ok"});
  }
}

std::string storm(unsigned n, std::uint64_t bytes) {
  std::string text = head();
  for (unsigned i = 0; i < n; ++i)
    text += pinned_copy(100 + i, 1000 + 10 * i, kPool + i * bytes, bytes);
  return text;
}

TEST(DoctorSmallCopyStorm, ManySmallCopiesAtOneSiteWithTheTimeABatchSaves) {
  const DoctorTrace t = parse_doctor_events(storm(150, 4096));
  RunRecord r = record_with(t);
  DoctorAnalysis a = analyse_doctor(r, t);
  const DoctorFinding* f = find(a, "small-copy-storm");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 150u);
  EXPECT_EQ(f->bytes, 150 * 4096u);
  EXPECT_NEAR(f->host_ms, 150 * 0.005, 1e-9);
  EXPECT_FALSE(f->lost_ms);  // no small-copy calibration yet
  ASSERT_EQ(f->sites.size(), 1u);
  // Copies of page-locked memory keep no site: the row names what the calls were.
  EXPECT_EQ(f->sites[0].where, "(no call site recorded: cudaMemcpyAsync, host to device)");
  EXPECT_NE(f->evidence.back().find("not estimated"), std::string::npos);

  add_small_cases(r, 4096, 5.0, 2.0, 0.5);
  a = analyse_doctor(r, t);
  f = find(a, "small-copy-storm");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->lost_ms);
  EXPECT_NEAR(*f->lost_ms, 150 * 0.003, 1e-9);  // 5 us less 2 us, per copy
  ASSERT_EQ(a.small_copy_rates.size(), 1u);
  EXPECT_EQ(a.small_copy_rates[0].copy_bytes, 4096u);
  EXPECT_NEAR(*a.small_copy_rates[0].contiguous_ms, 0.0005, 1e-12);
  EXPECT_NE(f->evidence.back().find("up to 0.675 ms less"), std::string::npos)
      << f->evidence.back();
  const ReportModel m = analyse(r);
  EXPECT_TRUE(std::any_of(m.tables.begin(), m.tables.end(),
                          [](const ReportTable& tab) { return tab.id == "doctor-small-copies"; }));
  // The small cases are not taken for the page-locked rate of the other findings.
  ASSERT_EQ(a.rates.size(), 1u);
  EXPECT_NEAR(*a.rates[0].pinned_gb_per_s, 40.0, 1e-9);
}

TEST(DoctorSmallCopyStorm, AbsentBelowTheCountAndAtOrAbove64KiB) {
  EXPECT_EQ(find(analysed(storm(kStormCalls - 1, 4096)), "small-copy-storm"), nullptr);
  EXPECT_EQ(find(analysed(storm(150, kSmallCopyBytes)), "small-copy-storm"), nullptr);
  EXPECT_NE(find(analysed(storm(kStormCalls, kSmallCopyBytes - 1)), "small-copy-storm"), nullptr);
}

// --- sync-after-copy ---------------------------------------------------------------------------

// `n` copies of 1 MiB at site A, each (unless `skip` names it) followed by a 50 us
// cudaStreamSynchronize; iterations 1 ms apart, each copy 100 us on the engine.
std::string copy_then_sync(unsigned n, int skip = -1, int tid = 77) {
  std::string text = head() + site(kSiteA, "drain");
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t t0 = 1000 + 1000 * i;
    text += pinned_copy(100 + i, t0, kPool, kMiB, 10, tid, kSiteA);
    if (static_cast<int>(i) != skip) {
      text += api("R", "sync", 200 + i, t0 + 10, t0 + 60, kNone, "cudaStreamSynchronize_v3020", 0,
                  0, 10, tid);
    }
  }
  return text;
}

TEST(DoctorSyncAfterCopy, EveryCopyWaitedForInALoop) {
  const DoctorAnalysis a = analysed(copy_then_sync(5));
  const DoctorFinding* f = find(a, "sync-after-copy");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 5u);
  EXPECT_EQ(f->bytes, 5 * kMiB);
  EXPECT_NEAR(f->host_ms, 5 * (0.005 + 0.050), 1e-9);
  ASSERT_TRUE(f->lost_ms);
  // Four gaps of 900 us between one copy's end and the next one's start, each up to the next
  // copy's 100 us.
  EXPECT_NEAR(*f->lost_ms, 4 * 0.100, 1e-9);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_EQ(f->sites[0].where, "drain (app+0x1234)");
}

TEST(DoctorSyncAfterCopy, AbsentWhenOneCopyWasNotWaitedForOrTooFew) {
  EXPECT_EQ(find(analysed(copy_then_sync(5, 2)), "sync-after-copy"), nullptr);
  EXPECT_EQ(find(analysed(copy_then_sync(kLoopCalls - 1)), "sync-after-copy"), nullptr);
  // A synchronisation on another thread is not this thread's wait.
  std::string text = head() + site(kSiteA, "drain");
  for (unsigned i = 0; i < 5; ++i) {
    text += pinned_copy(100 + i, 1000 + 1000 * i, kPool, kMiB, 10, 77, kSiteA);
    text += api("R", "sync", 200 + i, 1010 + 1000 * i, 1060 + 1000 * i, kNone,
                "cudaStreamSynchronize_v3020", 0, 0, 10, 78);
  }
  EXPECT_EQ(find(analysed(text), "sync-after-copy"), nullptr);
}

// --- pageable-async-d2h ------------------------------------------------------------------------

TEST(DoctorPageableAsyncD2h, EachDirectionHasItsFindingAndABatchOfBothIsToTheDevice) {
  std::string text = head() + site(kSiteA, "up") + site(kSiteB, "down") + pageable_loop(3);
  for (unsigned i = 0; i < 2; ++i) {
    text += api("R", "copy_async", 50 + i, 200000 + 10000 * i, 201000 + 10000 * i, kSiteB,
                "cudaMemcpyAsync_v3020");
    text += memcpy_line(950 + i, 50 + i, 2, 2 * kMiB, 3, 1, 200000 + 10000 * i, 201000 + 10000 * i);
  }
  // One batch copying both ways: it reads pageable memory too, so it is pageable-async's.
  text += api("R", "batch", 60, 300000, 301000, kSiteA, "cudaMemcpyBatchAsync_v12080");
  text += memcpy_line(960, 60, 1, kMiB, 1, 3, 300000, 300500);
  text += memcpy_line(961, 60, 2, kMiB, 3, 1, 300500, 301000);
  const DoctorAnalysis a = analysed(text);
  const DoctorFinding* up = find(a, "pageable-async");
  const DoctorFinding* down = find(a, "pageable-async-d2h");
  ASSERT_NE(up, nullptr);
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(up->count, 4u);
  EXPECT_EQ(up->bytes, 12 * kMiB + 2 * kMiB);
  EXPECT_EQ(down->count, 2u);
  EXPECT_EQ(down->bytes, 4 * kMiB);
  EXPECT_EQ(down->sites[0].where, "down (app+0x1234)");
  EXPECT_NE(down->fix_code.find("cudaMemcpyDeviceToHost"), std::string::npos);
}

TEST(DoctorPageableAsyncD2h, APythonProgramGetsPyTorchsFix) {
  std::string text = head() + "S\t10\t" + kSiteA + "\tP|loop.py|7|<module>\n";
  for (unsigned i = 0; i < 3; ++i) {
    text += api("R", "copy_async", 1 + i, 1000 * (i + 1), 1000 * (i + 1) + 800, kSiteA,
                "cudaMemcpyAsync_v3020");
    text += memcpy_line(900 + i, 1 + i, 2, 4 * kMiB, 3, 1, 1000 * (i + 1), 1000 * (i + 1) + 800);
  }
  const DoctorAnalysis a = analysed(text);
  const DoctorFinding* f = find(a, "pageable-async-d2h");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->sites[0].where, "loop.py:7 in <module>");
  EXPECT_NE(f->fix_code.find("pin_memory=True"), std::string::npos);
}

// --- numa-placement ----------------------------------------------------------------------------

// A 64 MiB page-locked pool on NUMA node `node`, four 16 MiB copies from it, and one 4 MiB
// pageable copy whose pages lie on `node` too.
std::string numa_program(int node) {
  std::string text = head() + site(kSiteA, "make_pool") + site(kSiteB, "upload") +
                     alloc(1, 10, 20, kPool, 64 * kMiB, kSiteA, node);
  for (unsigned i = 0; i < 4; ++i) {
    text += pinned_copy(10 + i, 100 + 1000 * i, kPool + i * 16 * kMiB, 16 * kMiB);
  }
  text += api("R", "copy_async", 30, 9000, 9400, kSiteB, "cudaMemcpyAsync_v3020", 0x5000, 4 * kMiB,
              10, 77, 'h', 'p', node);
  text += memcpy_line(930, 30, 1, 4 * kMiB, 1, 3, 9000, 9400);
  return text;
}

RunRecord numa_record(const DoctorTrace& t, int nodes, int gpu_node) {
  RunRecord r = record_with(t);
  r.machine.host_numa_nodes = nodes;
  r.machine.numa_node = gpu_node;
  return r;
}

void add_numa_case(RunRecord& r, const std::string& memory, std::uint64_t bytes, int node,
                   double gbps) {
  Case c = rate_case("h2d", memory, bytes, static_cast<double>(bytes) / (gbps * 1e6), 0.01);
  c.part = kNumaPart;
  c.method = "cudaMemcpyAsync, host node " + std::to_string(node);
  c.gate = "doctor/numa/h2d/" + memory + "/node" + std::to_string(node);
  c.extra["host_numa_node"] = node;
  r.cases.push_back(c);
  r.gates.push_back({c.gate, true, "ok"});
}

TEST(DoctorNuma, OnOneNodeNothingIsJudgedAndTheReasonSaid) {
  const DoctorTrace t = parse_doctor_events(numa_program(0));
  const DoctorAnalysis a = analyse_doctor(numa_record(t, 1, 0), t);
  EXPECT_EQ(find(a, "numa-placement"), nullptr);
  EXPECT_TRUE(not_judged(a, "numa-placement", "this host has one NUMA node"));
  // Nor where the GPU's node is unknown, nor where no page's node was read.
  const DoctorAnalysis unknown = analyse_doctor(numa_record(t, 2, -1), t);
  EXPECT_TRUE(not_judged(unknown, "numa-placement", "the GPU's NUMA node is unknown"));
  const DoctorTrace unread = parse_doctor_events(numa_program(-1));
  EXPECT_TRUE(not_judged(analyse_doctor(numa_record(unread, 2, 0), unread), "numa-placement",
                         "no page's NUMA node was read"));
  // A program with nothing page-locked and no large pageable copy has nothing to judge.
  const DoctorTrace none = parse_doctor_events(storm(3, 4096));
  EXPECT_TRUE(analyse_doctor(numa_record(none, 1, 0), none).not_judged.empty());
  const ReportModel m = analyse(numa_record(t, 1, 0));
  EXPECT_TRUE(std::any_of(m.tables.begin(), m.tables.end(),
                          [](const ReportTable& tab) { return tab.id == "doctor-not-judged"; }));
}

TEST(DoctorNuma, TwoNodesBuffersOffTheGpusNodeAndTheirCostAtBothPlacements) {
  const DoctorTrace t = parse_doctor_events(numa_program(1));
  RunRecord r = numa_record(t, 2, 0);
  DoctorAnalysis a = analyse_doctor(r, t);
  const DoctorFinding* f = find(a, "numa-placement");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->counted, "copies");
  EXPECT_EQ(f->count, 5u);
  EXPECT_EQ(f->bytes, 68 * kMiB);
  EXPECT_FALSE(f->lost_ms);        // no case at both placements yet
  ASSERT_EQ(f->sites.size(), 2u);  // the pool where it was allocated, the pageable copy's site
  EXPECT_NE(f->evidence[0].find("page-locked buffers on NUMA node 1: 1 (64 MiB); pageable "
                                "copies of 1 MiB or more whose pages lie there: 1; the GPU sits "
                                "on node 0"),
            std::string::npos)
      << f->evidence[0];
  EXPECT_TRUE(a.not_judged.empty());

  add_numa_case(r, "pinned", 16 * kMiB, 0, 50.0);
  add_numa_case(r, "pinned", 16 * kMiB, 1, 40.0);
  add_numa_case(r, "pageable", 4 * kMiB, 0, 20.0);
  add_numa_case(r, "pageable", 4 * kMiB, 1, 10.0);
  a = analyse_doctor(r, t);
  f = find(a, "numa-placement");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->lost_ms);
  const double pinned = 4 * (16.0 * kMiB / 40e6 - 16.0 * kMiB / 50e6);
  const double pageable = 4.0 * kMiB / 10e6 - 4.0 * kMiB / 20e6;
  EXPECT_NEAR(*f->lost_ms, pinned + pageable, 1e-9);
  ASSERT_EQ(a.numa_rates.size(), 4u);
  EXPECT_TRUE(a.numa_rates[0].gpu_node);
  EXPECT_FALSE(a.numa_rates[1].gpu_node);
  // The NUMA cases are not taken for the pageable findings' page-locked rate.
  ASSERT_FALSE(a.rates.empty());
  for (const DoctorRate& rate : a.rates) {
    if (rate.pinned_gb_per_s) {
      EXPECT_NEAR(*rate.pinned_gb_per_s, 40.0, 1e-9);
    }
  }
  // On the GPU's own node, nothing is misplaced.
  const DoctorTrace near = parse_doctor_events(numa_program(0));
  EXPECT_EQ(find(analyse_doctor(numa_record(near, 2, 0), near), "numa-placement"), nullptr);
}

// --- the calibration's plan --------------------------------------------------------------------

TEST(DoctorCalibrationPlan, SmallCopiesWhereAStormIsAndNodesWhereTheHostHasTwo) {
  DoctorTrace t = parse_doctor_events(storm(150, 4096));
  MachineInfo m;
  m.host_numa_nodes = 1;
  m.numa_node = 0;
  DoctorCalibrationPlan plan = doctor_calibration_plan(m, t);
  ASSERT_EQ(plan.small.size(), 1u);
  EXPECT_EQ(plan.small[0].direction, "h2d");
  EXPECT_EQ(plan.small[0].copy_bytes, 4096u);
  EXPECT_TRUE(plan.numa.empty());
  EXPECT_TRUE(doctor_calibration_plan(m, parse_doctor_events(storm(10, 4096))).empty());

  t = parse_doctor_events(numa_program(1));
  EXPECT_TRUE(doctor_calibration_plan(m, t).empty());  // one node: nothing to measure
  m.host_numa_nodes = 2;
  plan = doctor_calibration_plan(m, t);
  ASSERT_EQ(plan.numa.size(), 2u);  // h2d pageable, h2d pinned
  EXPECT_EQ(plan.numa[0].memory, "pageable");
  EXPECT_EQ(plan.numa[0].bytes, 4 * kMiB);
  EXPECT_EQ(plan.numa[1].memory, "pinned");
  EXPECT_EQ(plan.numa[1].bytes, 16 * kMiB);
  EXPECT_EQ(plan.numa[1].nodes, (std::vector<int>{0, 1}));
}

// --- ranking and the headline ------------------------------------------------------------------

TEST(DoctorHeadline, FindingsRankedByTimeSavedAndOneLineAtTheTop) {
  std::string text = head() + site(kSiteA, "step") + pageable_loop(10);
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint64_t t0 = 1000000 + 100000 * i;
    text += api("R", "alloc", 100 + i, t0, t0 + 4000, kSiteA, "cudaMallocHost_v3020", 0x7000, kMiB);
    text += api("R", "free", 200 + i, t0 + 5000, t0 + 6000, kNone, "cudaFreeHost_v3020", 0x7000);
  }
  // 20 GiB registered of 64: over-pinning, which estimates no time.
  text += api("R", "register", 300, 2000000, 2000200, kNone, "cudaHostRegister_v4000", 0x10000,
              20 * kGiB);
  DoctorTrace t = parse_doctor_events(text);
  t.wall_ms = 500;
  const RunRecord r = record_with(t);
  const DoctorAnalysis a = analyse_doctor(r, t);
  ASSERT_EQ(a.findings.size(), 3u);
  // Churn saves 3 x 5 ms, the pageable copies 10 x 0.99 ms; over-pinning ranks by its host time.
  EXPECT_EQ(a.findings[0].id, "alloc-churn");
  EXPECT_EQ(a.findings[1].id, "pageable-async");
  EXPECT_EQ(a.findings[2].id, "over-pinning");
  ASSERT_TRUE(a.saved_ms);
  EXPECT_NEAR(*a.saved_ms, 15.0 + 9.9, 1e-9);
  EXPECT_EQ(a.headline,
            "Fix these 2 findings (alloc-churn, pageable-async) and save about 24.9 ms of the "
            "program's 500 ms; 1 more has no time estimate.");
  const ReportModel m = analyse(r);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_EQ(m.notes[0], a.headline);
  const std::string out = test::unwrapped(render_text(m));
  EXPECT_LT(out.find(a.headline), out.find("Program: exited"));
  EXPECT_NE(render_markdown(m).find(a.headline), std::string::npos);
}

TEST(DoctorHeadline, OneFindingNoEstimateAndNone) {
  DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop(3));
  DoctorAnalysis a = analyse_doctor(record_with(t), t);  // wall time unknown: not said
  EXPECT_EQ(a.headline, "Fix this finding (pageable-async) and save about 3.0 ms.");
  a = analyse_doctor(record_with(t, false), t);
  EXPECT_EQ(a.headline, "1 finding, none with a time estimate (no rates for it in the record).");
  EXPECT_FALSE(a.saved_ms);
  t = parse_doctor_events(head());
  a = analyse_doctor(record_with(t), t);
  EXPECT_TRUE(a.findings.empty());
  EXPECT_TRUE(a.headline.empty());
}

// --- machines that read pageable memory through the host's page tables --------------------------

RunRecord on_grace_hopper(const DoctorTrace& t, double pageable_gbps, double pinned_gbps) {
  RunRecord r = record_with(t, false);
  r.machine.pageable_memory_access = 1;
  r.machine.pageable_memory_access_uses_host_page_tables = 1;
  for (const auto& [memory, gbps] :
       {std::make_pair("pageable", pageable_gbps), std::make_pair("pinned", pinned_gbps)}) {
    r.cases.push_back(rate_case("h2d", memory, 4 * kMiB, 4.0 * kMiB / (gbps * 1e6), 0.01));
    r.gates.push_back({r.cases.back().gate, true, "ok"});
  }
  return r;
}

TEST(DoctorHostPageTables, PageableCopiesNearThePinnedRateAreNotAPitfallAndSaySo) {
  const DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop(10));
  // 93 against 97: within the share doctor lets pass.
  const RunRecord near = on_grace_hopper(t, 93.0, 97.0);
  const DoctorAnalysis a = analyse_doctor(near, t);
  EXPECT_EQ(find(a, "pageable-async"), nullptr);
  EXPECT_TRUE(not_judged(a, "pageable-async", "through the host's page tables"));
  EXPECT_TRUE(not_judged(a, "pageable-async", "93.00 GB/s against 97.00 GB/s"));
  EXPECT_FALSE(a.pageable_note.empty());
  const ReportModel m = analyse(near);
  EXPECT_TRUE(std::find(m.notes.begin(), m.notes.end(), a.pageable_note) != m.notes.end());
}

TEST(DoctorHostPageTables, SlowPageableCopiesStandWithTheReasonFirst) {
  const DoctorTrace t = parse_doctor_events(head() + site(kSiteA, "step") + pageable_loop(10));
  const DoctorAnalysis a = analyse_doctor(on_grace_hopper(t, 10.0, 40.0), t);
  const DoctorFinding* f = find(a, "pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence[0].find("this GPU reads pageable memory through the host's page tables"),
            0u);
  EXPECT_NE(f->evidence[0].find("so the finding stands"), std::string::npos);
  // Without the rates, it is kept on its host time and says it is unproven.
  RunRecord bare = record_with(t, false);
  bare.machine.pageable_memory_access_uses_host_page_tables = 1;
  const DoctorAnalysis unproven = analyse_doctor(bare, t);
  const DoctorFinding* g = find(unproven, "pageable-async");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->evidence[0].find("unproven"), std::string::npos);
  // Elsewhere nothing of it is said.
  const DoctorAnalysis elsewhere = analyse_doctor(record_with(t), t);
  const DoctorFinding* h = find(elsewhere, "pageable-async");
  ASSERT_NE(h, nullptr);
  for (const std::string& e : h->evidence) EXPECT_EQ(e.find("page tables"), std::string::npos);
}

TEST(MachineAddressing, InfoNamesTheAddressingModeAndTheLessonWarnsBeforeItsPredictions) {
  MachineInfo m;
  EXPECT_EQ(pageable_addressing(m).find("copied through the driver's staging buffers"), 0u);
  m.pageable_memory_access = 1;
  EXPECT_NE(pageable_addressing(m).find("HMM"), std::string::npos);
  m.pageable_memory_access_uses_host_page_tables = 1;
  EXPECT_EQ(pageable_addressing(m).find("read through the host's page tables (HMM/ATS, as on Grace "
                                        "Hopper)"),
            0u);

  RunRecord lesson = make_lesson_record();
  EXPECT_TRUE(analyse_lesson(lesson).premise_warning.empty());
  lesson.machine.pageable_memory_access = 1;
  lesson.machine.pageable_memory_access_uses_host_page_tables = 1;
  const LessonAnalysis a = analyse_lesson(lesson);
  EXPECT_NE(a.premise_warning.find("expected to die on this machine"), std::string::npos);
  const ReportModel model = analyse(lesson);
  ASSERT_FALSE(model.verdicts.empty());
  EXPECT_EQ(model.verdicts[0].note.find(a.premise_warning), 0u);
  const std::string text = render_text(model);
  const std::size_t predictions = text.find("\nPredictions\n");
  ASSERT_NE(predictions, std::string::npos);
  // "  " after the heading, then the warning (wrapped at 100 columns).
  EXPECT_EQ(test::unwrapped(text.substr(predictions + 15)).rfind(a.premise_warning, 0), 0u);
  // The machine table names the mode only where it changes what pageable memory means.
  bool row = false;
  for (const auto& [k, v] : machine_fields(lesson.machine)) row = row || k == "Pageable memory";
  EXPECT_TRUE(row);
  for (const auto& [k, v] : machine_fields(make_lesson_record().machine)) {
    EXPECT_NE(k, "Pageable memory");
  }
}

// --- the record's new machine fields -----------------------------------------------------------

TEST(DoctorMachineFields, RoundTripDefaultAndBadInput) {
  RunRecord r = make_lesson_record();
  r.machine.pageable_memory_access_uses_host_page_tables = 1;
  r.machine.host_numa_nodes = 2;
  const RunRecord back = record_from_json(to_json(r));
  EXPECT_EQ(back.machine.pageable_memory_access_uses_host_page_tables, 1);
  EXPECT_EQ(back.machine.host_numa_nodes, 2);
  nlohmann::json old = to_json(r);
  old["machine"].erase("pageable_memory_access_uses_host_page_tables");
  old["machine"].erase("host_numa_nodes");
  const RunRecord before = record_from_json(old);  // a record made before they were read
  EXPECT_EQ(before.machine.pageable_memory_access_uses_host_page_tables, 0);
  EXPECT_EQ(before.machine.host_numa_nodes, 0);
  const auto refused = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json j = to_json(r);
    j["machine"][key] = value;
    try {
      record_from_json(j);
      ADD_FAILURE() << key << " = " << value.dump() << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("machine.") + key), std::string::npos)
          << e.what();
    }
  };
  refused("pageable_memory_access_uses_host_page_tables", 2);
  refused("pageable_memory_access_uses_host_page_tables", "yes");
  refused("host_numa_nodes", -1);
  refused("host_numa_nodes", 1.5);
}

TEST(DoctorMachineFields, TheHostsNodesFromSysfs) {
  const std::string root = test::temp_dir() + "/numa-sysfs";
  std::filesystem::remove_all(root);
  EXPECT_EQ(host_numa_nodes(root), 0);  // nothing there
  const std::string dir = root + "/devices/system/node";
  for (const char* node : {"node0", "node1", "node3"}) {
    std::filesystem::create_directories(dir + "/" + node);
  }
  std::filesystem::create_directories(dir + "/nodefoo");  // not a node
  EXPECT_EQ(host_numa_nodes(root), 3);
  test::write_file(dir + "/has_memory", "0-1\n");  // node3 has CPUs only
  EXPECT_EQ(host_numa_nodes(root), 2);
}

// --- compare of two doctor records -------------------------------------------------------------

// Before the fix: ten pageable copies at `step` and four allocate/free rounds; after it: three
// pageable copies left at `step`, no churn, and a new synchronisation after every copy.
RunRecord before_fix() {
  std::string text = head() + site(kSiteA, "step") + pageable_loop(10);
  for (unsigned i = 0; i < 4; ++i) {
    const std::uint64_t t0 = 1000000 + 100000 * i;
    text += api("R", "alloc", 100 + i, t0, t0 + 4000, kSiteA, "cudaMallocHost_v3020", 0x7000, kMiB);
    text += api("R", "free", 200 + i, t0 + 5000, t0 + 6000, kNone, "cudaFreeHost_v3020", 0x7000);
  }
  DoctorTrace t = parse_doctor_events(text);
  t.wall_ms = 500;
  return record_with(t);
}

RunRecord after_fix() {
  std::string text = copy_then_sync(5) + site(kSiteB, "step") + pageable_loop(3, kSiteB, 100);
  DoctorTrace t = parse_doctor_events(text);
  t.wall_ms = 450;
  return record_with(t);
}

TEST(DoctorCompare, PerFindingAndSiteWhatChanged) {
  const DoctorComparison c = compare_doctor(before_fix(), after_fix());
  ASSERT_EQ(c.findings.size(), 3u);
  EXPECT_EQ(c.findings[0].id, "alloc-churn");  // A's ranking first
  EXPECT_TRUE(c.findings[0].a && !c.findings[0].b);
  EXPECT_EQ(c.findings[1].id, "pageable-async");
  ASSERT_TRUE(c.findings[1].a && c.findings[1].b);
  EXPECT_EQ(c.findings[1].a->count, 10u);
  EXPECT_EQ(c.findings[1].b->count, 3u);
  ASSERT_EQ(c.findings[1].sites.size(), 1u);
  EXPECT_EQ(c.findings[2].id, "sync-after-copy");  // only B's
  EXPECT_TRUE(!c.findings[2].a && c.findings[2].b);
  EXPECT_EQ(c.new_findings(), 1u);
  EXPECT_EQ(c.gone_findings(), 1u);
  EXPECT_EQ(c.new_sites(), 0u);
  EXPECT_TRUE(c.worse());
  const std::string text = render_doctor_comparison(c);
  EXPECT_NE(text.find("A: Fix these 2 findings (alloc-churn, pageable-async)"), std::string::npos)
      << text;
  // The change column wraps within its width where the table is too wide for a terminal.
  EXPECT_NE(test::unwrapped(text).find("7 fewer calls, 6.930 ms less lost"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  step (app+0x1234)"), std::string::npos) << text;
  EXPECT_NE(text.find("3 findings in A or B: 1 new in B, 1 gone; 0 call sites new in B in "
                      "findings A had too. B is worse: compare exits 1."),
            std::string::npos)
      << text;
  // The fix without the new loop is not worse.
  EXPECT_FALSE(compare_doctor(before_fix(), before_fix()).worse());
}

TEST(DoctorCompare, TheCommandComparesFindingsAndExitsOneWhenBIsWorse) {
  const std::string dir = test::temp_dir();
  RunRecord a = before_fix(), b = after_fix();
  a.cases.clear();  // no calibration in either: no case in common, and that is no error here
  a.gates.clear();
  b.cases.clear();
  b.gates.clear();
  save_record(a, dir + "/a.json");
  save_record(b, dir + "/b.json");
  const std::string bin = std::string(PINBENCH_BINARY);
  test::Result r = test::run(bin + " compare " + dir + "/a.json " + dir + "/b.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("Doctor findings, A (before) against B (after):"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("sync-after-copy"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Median GB/s"), std::string::npos) << r.out;  // no cases to compare
  r = test::run(bin + " compare " + dir + "/b.json " + dir + "/a.json");
  EXPECT_EQ(r.exit_code, 1) << r.out;  // churn is new the other way round
  r = test::run(bin + " compare " + dir + "/a.json " + dir + "/a.json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // With their calibration, the cases follow the findings.
  save_record(before_fix(), dir + "/ac.json");
  r = test::run(bin + " compare " + dir + "/ac.json " + dir + "/ac.json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_LT(r.out.find("Doctor findings"), r.out.find("Median GB/s"));
  // A doctor record without a trace cannot be compared as one.
  RunRecord empty = a;
  empty.sections.erase("doctor");
  save_record(empty, dir + "/empty.json");
  r = test::run(bin + " compare " + dir + "/empty.json " + dir + "/a.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pinbench: error: record A holds no doctor trace to compare\n");
}

// The finding ids are what --fail-on takes: every finding this file makes is one.
TEST(DoctorFindingIds, EveryNewFindingIsAFailOnId) {
  const std::vector<std::string>& ids = doctor_finding_ids();
  for (const char* id :
       {"pinned-unused", "pinning-critical-path", "numa-placement", "small-copy-storm",
        "sync-after-copy", "pageable-async-d2h", "pinning-failed"}) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  }
}

}  // namespace
}  // namespace pinbench

// `check --mpi`: libpinbench_mpi.so loaded at run time (dlopen), so pinbench runs where there is
// no Open MPI and only --mpi needs it. It is looked for in PINBENCH_MPI_LIBRARY, then beside the
// pinbench binary.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pinbench::experiments::check {

class MpiSession {
 public:
  // Loads the library and starts MPI; InputError (exit 2) naming what was tried when it cannot.
  MpiSession();
  ~MpiSession();  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  // Every rank's `text` at rank 0, in rank order; empty on the other ranks.
  std::vector<std::string> gather(const std::string& text);

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace pinbench::experiments::check

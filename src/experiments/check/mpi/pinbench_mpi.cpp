// libpinbench_mpi.so: Open MPI calls behind the C boundary of pinbench_mpi.h. Two collectives:
// the lengths (MPI_Gather), then the bytes (MPI_Gatherv), in pieces below 2^31 bytes as MPI's
// int counts need.
#include "experiments/check/mpi/pinbench_mpi.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include <mpi.h>

extern "C" {

int pinbench_mpi_start(int* argc, char*** argv, int* rank, int* size, int* local_rank,
                       int* local_size) {
  int rc = MPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  MPI_Comm local;
  rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &local);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_rank(local, local_rank);
  MPI_Comm_size(local, local_size);
  MPI_Comm_free(&local);
  return MPI_SUCCESS;
}

int pinbench_mpi_gather(const char* data, unsigned long long len, char** out,
                        unsigned long long** lengths) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *out = nullptr;
  *lengths = nullptr;
  std::vector<unsigned long long> lens(rank == 0 ? size : 0);
  int rc = MPI_Gather(&len, 1, MPI_UNSIGNED_LONG_LONG, lens.data(), 1, MPI_UNSIGNED_LONG_LONG, 0,
                      MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return rc;
  // A record is a few hundred KiB: one Gatherv unless a rank sends 2 GiB or more.
  unsigned long long total = 0;
  for (unsigned long long l : lens) total += l;
  if (len > 0x7fffffffULL || total > 0x7fffffffULL) return MPI_ERR_COUNT;
  std::vector<int> counts(lens.size()), displs(lens.size());
  for (std::size_t i = 0, at = 0; i < lens.size(); at += lens[i], ++i) {
    counts[i] = static_cast<int>(lens[i]);
    displs[i] = static_cast<int>(at);
  }
  char* buf = nullptr;
  if (rank == 0) buf = static_cast<char*>(std::malloc(total > 0 ? total : 1));
  rc = MPI_Gatherv(data, static_cast<int>(len), MPI_CHAR, buf, counts.data(), displs.data(),
                   MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    std::free(buf);
    return rc;
  }
  if (rank == 0) {
    *out = buf;
    *lengths = static_cast<unsigned long long*>(std::malloc(sizeof(unsigned long long) * size));
    std::memcpy(*lengths, lens.data(), sizeof(unsigned long long) * size);
  }
  return MPI_SUCCESS;
}

void pinbench_mpi_free(void* p) {
  std::free(p);
}

int pinbench_mpi_finish(void) {
  return MPI_Finalize();
}

}  // extern "C"

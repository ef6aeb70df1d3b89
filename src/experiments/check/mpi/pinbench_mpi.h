/* The one boundary between pinbench and Open MPI: libpinbench_mpi.so, built only where CMake
 * finds MPI, and loaded by `pinbench check --mpi` at run time, so the pinbench binary itself
 * never needs libmpi (the GPU machine has none). It moves bytes between ranks and nothing else:
 * what the bytes are (check records) is pinbench's business. Every function returns 0 or an MPI
 * error code. */
#ifndef PINBENCH_MPI_H
#define PINBENCH_MPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Init; this rank, the world's size, and this rank's place among the ranks of its host. */
int pinbench_mpi_start(int* argc, char*** argv, int* rank, int* size, int* local_rank,
                       int* local_size);

/* Gathers `len` bytes from every rank at rank 0. On rank 0, *out holds the concatenation in rank
 * order and *lengths each rank's length (both malloc'ed: free with pinbench_mpi_free); elsewhere
 * both are set to NULL. */
int pinbench_mpi_gather(const char* data, unsigned long long len, char** out,
                        unsigned long long** lengths);

void pinbench_mpi_free(void* p);

/* MPI_Finalize. */
int pinbench_mpi_finish(void);

#ifdef __cplusplus
}
#endif

#endif

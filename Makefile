# dmpi top-level make: wraps the CMake build.
#   make            build everything into build/
#   make check      build and run the whole test suite (last line: N passed, N failed)
#   make demo       build and run the application suite (apps/) at small sizes
#                   on 2 and 4 ranks: one table of checks and figures (~1 min)
#   make install PREFIX=/dir
#   make asan       build with AddressSanitizer+UBSan into build-asan/ and run the tests
#   make tsan       build with ThreadSanitizer into build-tsan/ and run the threaded tests
#   make valgrind   run a representative subset under Valgrind memcheck (build/)
#   make faults     the fault-injection matrix in its long (soak) mode
#   make fuzz       build the libFuzzer harnesses (clang) and fuzz each for FUZZ_TIME s
#   make bench      side-by-side benchmark against MPICH and Open MPI (bench/README.md)
#   make check-mpi4py   build mpi4py from source against dmpi (venv in $(BUILD)/mpi4py),
#                   run its bench programs and test suite on 1-4 ranks (docs/mpi4py.md)
#   make cmake-example  CMake find_package(MPI), pkg-config, mpicc/mpicxx, install tree
#   make check-net  the MPI suite over libfabric on this host (ranks told they are on 3 nodes)
#   make check-hosts    the MPI suite across 2 and 3 test hosts (network namespaces, root)
#   make faults-hosts   the fault-injection matrix across 2 and 3 test hosts
#   make check-slurm    dmpi under a real Slurm: srun --mpi=pmi2|pmix, sbatch,
#                   salloc + mpiexec, MPI_Abort and a killed rank, on a private
#                   cluster on this machine and 2 test hosts (tests/slurm/, root)
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= 2
CMAKE_FLAGS ?=

FUZZ_TIME ?= 30

.PHONY: all build check demo install asan tsan valgrind faults fuzz bench clean check-mpi4py cmake-example

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

check: build
	tests/run_tests.sh --build $(BUILD)

demo: build
	apps/demo.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Sanitizer runs: any report fails the test it happens in. Programs built
# without the sanitizer (cross-ABI, CMake example) load the ASan library
# late: verify_asan_link_order=0 lets them.
# The malloc library (DMPI_SHM_MALLOC) would hide allocations from the
# sanitizers' own malloc: off under them.
# Leaks inside libfabric itself are suppressed (tests/lsan.supp).
SAN_ENV = DMPI_SHM_MALLOC=0 \
	ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1:verify_asan_link_order=0} \
	UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
	LSAN_OPTIONS=$${LSAN_OPTIONS:-suppressions=$(CURDIR)/tests/lsan.supp}
asan:
	$(MAKE) BUILD=build-asan CMAKE_FLAGS=-DDMPI_SANITIZE=ON build
	$(SAN_ENV) tests/run_tests.sh --build build-asan

# ThreadSanitizer on the threaded tests (MPI_THREAD_MULTIPLE and friends).
# The shared heap is off (DMPI_SHM_HEAP_MB=0): its fixed addresses lie
# outside the memory ThreadSanitizer lets a program map.
# -DDMPI_TSAN=ON when the top-level CMakeLists.txt knows the option, else
# the same flags by hand.
TSAN_CMAKE = $(if $(shell grep -l DMPI_TSAN CMakeLists.txt 2>/dev/null),-DDMPI_TSAN=ON,\
	"-DCMAKE_C_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" \
	-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread)
# Then a few single-threaded programs with the progress thread of
# DMPI_ASYNC_PROGRESS=1 beside them (TSAN_ASYNC_TESTS).
TSAN_TESTS = threads_multiple|threads_p2p_modes|init_thread
TSAN_ASYNC_TESTS = p2p_rendezvous|p2p_wildcard|coll_nbc|rma_passive|rma_acc_atomic
tsan:
	@test -f build-tsan/CMakeCache.txt || cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo $(TSAN_CMAKE)
	cmake --build build-tsan -j$(JOBS) --target mpiexec mpitest_threads_multiple mpitest_threads_p2p_modes mpitest_init_thread \
		mpitest_p2p_rendezvous mpitest_p2p_wildcard mpitest_coll_nbc mpitest_rma_passive mpitest_rma_acc_atomic
	$(SAN_ENV) DMPI_SHM_HEAP_MB=0 tests/run_tests.sh --build build-tsan --mpi-only '$(TSAN_TESTS)'
	$(SAN_ENV) DMPI_SHM_HEAP_MB=0 DMPI_ASYNC_PROGRESS=1 tests/run_tests.sh --build build-tsan --mpi-only '$(TSAN_ASYNC_TESTS)'

valgrind: build
	tests/valgrind/run_valgrind.sh $(BUILD)

faults: build
	tests/faults/run_faults.sh --soak $(BUILD)

fuzz: # exit status 77: no clang/libFuzzer here, skipped
	tests/fuzz/run_fuzz.sh --time $(FUZZ_TIME) || test $$? = 77

bench: build
	bench/run_all.sh --dmpi-prefix $(BUILD) $(BENCH_ARGS)

check-mpi4py: build
	tests/mpi4py/run_mpi4py.sh $(BUILD)

cmake-example: build
	tests/integration/test_cmake_pkgconfig.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz

.PHONY: check-net check-hosts faults-hosts
# The MPI suite over libfabric: on this host with ranks told they are on 3
# nodes (check-net), and across 2 and 3 test hosts made of namespaces
# (check-hosts, root; skipped with a line where they cannot be made).
# Exit status 77 (skipped, with a line saying why) counts as success.
check-net: build
	tests/hosts/run_hosts.sh --one-host $(BUILD) || test $$? = 77
check-hosts: build
	tests/hosts/run_hosts.sh $(BUILD) || test $$? = 77
# The fault-injection matrix with the job spread over 2, then 3 test hosts.
faults-hosts: build
	for n in 2 3; do tests/faults/run_faults.sh --hosts $$n --reps 3 $(BUILD) || { test $$? = 77 || exit 1; }; done

.PHONY: check-slurm
# dmpi under a real Slurm: tests/slurm/run_slurm.sh brings up a private
# cluster (tests/slurm/slurm.sh: munged, slurmctld, slurmd here and on 2
# test hosts), runs srun/sbatch/salloc cases and takes it down again. Where
# Slurm is not installed or its daemons cannot run, one "SKIP: slurm: ..."
# line and success.
check-slurm: build
	tests/slurm/run_slurm.sh $(BUILD)

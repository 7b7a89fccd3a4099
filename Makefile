# dmpi top-level make: wraps the CMake build.
#   make            build everything into build/
#   make check      build and run the whole test suite (last line: N passed, N failed)
#   make demo       build and run the 3-D stencil demonstration on 4 ranks
#   make install PREFIX=/dir
#   make asan       build with AddressSanitizer+UBSan into build-asan/ and run the tests
#   make bench      side-by-side benchmark against MPICH and Open MPI (bench/README.md)
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all build check demo install asan bench clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

check: build
	tests/run_tests.sh --build $(BUILD)

demo: build
	$(BUILD)/bin/mpiexec -n 4 $(BUILD)/examples/stencil3d

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

asan:
	$(MAKE) BUILD=build-asan CMAKE_FLAGS=-DDMPI_SANITIZE=ON check

bench: build
	bench/compare.sh --dmpi-prefix $(BUILD)

clean:
	rm -rf $(BUILD) build-asan

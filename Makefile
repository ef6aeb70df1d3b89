# The README's two commands. Both install what is missing first (apt as root; otherwise they
# print the command to run).
#   make run    build, then run `pinbench lesson` (a replay of the newest recorded run without a GPU)
#   make test   build, then run every test (GPU tests report as skipped without a GPU)
# Also:
#   make test-install    install the transfer library into a temporary prefix and build
#                        examples/staged_consumer against it (part of `make test`)
#   make test-sanitize   CPU tests under AddressSanitizer and UndefinedBehaviorSanitizer (its build
#                        preset builds only the five targets they run: CMakePresets.json), less
#                        those that check no C++ of pinbench's (layout, scripts, docs, Python,
#                        the browser), time growth (slowed unevenly by the sanitizers), or run the
#                        binary over every record or option (the same code runs in-process here)
#   make fuzz            the libFuzzer targets (Clang), 30 s each (FUZZ_SECONDS=N to change)
#   make docs            regenerate docs/cli.md, the command-line reference, from the CLI itself
#   make gpu-bundle      copy the binaries that run on a GPU machine into .gpu/ (with the Python
#                        package and its tests, for staged --torch and tests-python/test_gpu.py)
# `make build` and `make run` need only the build packages (scripts/build/debian-packages.txt); the
# test targets also need the test packages (scripts/build/debian-packages-test.txt, e.g. Chromium).

FUZZ_SECONDS ?= 30
# Tests run side by side, one per CPU (the GPU tests one at a time: tests/CMakeLists.txt).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps deps-test build run test test-install test-sanitize fuzz docs gpu-bundle format clean

BUILD_PACKAGES := scripts/build/debian-packages.txt
TEST_PACKAGES := $(BUILD_PACKAGES) scripts/build/debian-packages-test.txt

define compile
	@cmake --preset default >/dev/null
	@cmake --build --preset default
endef

all: build

deps:
	@scripts/build/ensure-deps.sh $(BUILD_PACKAGES)

deps-test:
	@scripts/build/ensure-deps.sh $(TEST_PACKAGES)

build: deps
	$(compile)

# Only the tool itself: the test binaries are built by `make test`.
run: deps
	@cmake --preset default >/dev/null
	@cmake --build --preset default --target pinbench
	./build/pinbench lesson

test: deps-test
	$(compile)
	ctest --preset default -j$(JOBS) --output-log build/ctest.log
	scripts/build/test-install.sh
	@scripts/build/test-summary.sh build/ctest.log

test-install: deps
	$(compile)
	scripts/build/test-install.sh

test-sanitize: deps-test
	@cmake --preset sanitize >/dev/null
	@cmake --build --preset sanitize
	ctest --preset sanitize -j$(JOBS)

fuzz:
	@scripts/build/ensure-deps.sh scripts/build/debian-packages-fuzz.txt
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz
	scripts/build/run-fuzz.sh build-fuzz $(FUZZ_SECONDS)

docs: deps
	@cmake --preset default >/dev/null
	@cmake --build --preset default --target pinbench
	./build/pinbench help --reference > docs/cli.md

gpu-bundle: build
	@mkdir -p .gpu
	cp build/pinbench build/libpinbench_doctor_inject.so build/tests/pinbench_gpu_tests build/libpinbench_c.so \
	  build/tests/pinbench_doctor_gpu_tests build/doctor_pitfalls build/doctor_ends build/libpinbench_accel.so \
	  build/tests/pinbench_accel_gpu_tests build/accel_program build/accel_program_ptds \
	  build/accel_program_static build/accel_program_static_ptds build/accel_seed_copies \
	  build/tests/pinbench_block_copier_bench build/pinbench_neighbour .gpu/
	# accel_program links the shared runtime and finds it beside itself ($$ORIGIN) first.
	cp -L build/libcudart.so.13 .gpu/
	rm -rf .gpu/python .gpu/tests-python .gpu/doctor_programs && cp -r python .gpu/python && \
	  cp -r tests/python .gpu/tests-python && cp -r tests/gpu/doctor_programs .gpu/doctor_programs

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')

clean:
	rm -rf build build-sanitize build-fuzz

# Warnings for host C++ (nvcc gets its own flags), sanitizers when asked, and the link options
# that let a binary built here run on a GPU machine that has the driver and nothing of ours.

# NO_SANITIZE: never the sanitizers, even in the sanitize build: for a library preloaded into
# other programs (accel's), whose sanitizer runtime would have to come first in every process.
function(pinbench_warnings target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_SANITIZE" "" "")
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
  if(PINBENCH_SANITIZE AND NOT arg_NO_SANITIZE)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined>)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
endfunction()

# libstdc++ and libgcc linked in, the CUDA runtime static: only glibc and the driver remain.
function(pinbench_portable_binary target)
  if(NOT PINBENCH_SANITIZE)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()

# The headers nearly every C++ file of the tool includes (fmt is header-only, JSON is too),
# compiled once per target instead of once per file: the build's biggest cost on a small machine.
# Only for C++: nvcc compiles its .cu files without them.
function(pinbench_precompiled_headers target)
  if(NOT PINBENCH_NO_PCH)
    target_precompile_headers(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:<nlohmann/json.hpp$<ANGLE-R>>
      $<$<COMPILE_LANGUAGE:CXX>:<fmt/format.h$<ANGLE-R>>
      $<$<COMPILE_LANGUAGE:CXX>:<string$<ANGLE-R>>
      $<$<COMPILE_LANGUAGE:CXX>:<vector$<ANGLE-R>>)
  endif()
endfunction()

# Warnings for host C++ (nvcc gets its own flags), sanitizers when asked, and the link options
# that let a binary built here run on a GPU machine that has the driver and nothing of ours.

function(pinbench_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
  if(PINBENCH_SANITIZE)
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

# Run by `cmake --install` (after the variables set by install(CODE) in CMakeLists.txt): tells
# the installed Python package where the C library went, prefix as given at install time.
set(_dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${pinbench_python_dir}/pinbench")
set(_lib "${pinbench_library}")
if(NOT IS_ABSOLUTE "${_lib}")
  set(_lib "${CMAKE_INSTALL_PREFIX}/${_lib}")
endif()
message(STATUS "Installing: ${_dir}/_paths.py")
file(WRITE "${_dir}/_paths.py"
  "# Written by cmake --install: where libpinbench_c.so was installed.\nLIBRARY = \"${_lib}\"\n")

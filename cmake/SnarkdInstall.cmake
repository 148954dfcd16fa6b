# What `cmake --install` puts where, for programs built against snarkd outside this tree:
# headers (include/snarkd), libsnarkd and libsnarkd_supraseal (shared + static), pkg-config
# files (snarkd, snarkd-supraseal) and a CMake package (find_package(snarkd)). The pkg-config
# and CMake files locate the prefix from their own place, so `--prefix` may be chosen at
# install time. A build-tree pkg-config folder (build/pkgconfig) serves the in-tree tests.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# What a static archive needs besides itself (the C++ runtime; the CUDA runtime in CUDA builds).
set(SNARKD_SUPRASEAL_PRIVATE "-lstdc++ -lm -lpthread")
set(SNARKD_SUPRASEAL_PRIVATE_CMAKE "stdc++;m;Threads::Threads")
set(SNARKD_CAPI_PRIVATE "${SNARKD_SUPRASEAL_PRIVATE}")
set(SNARKD_CAPI_PRIVATE_CMAKE "${SNARKD_SUPRASEAL_PRIVATE_CMAKE}")
if(TARGET snarkd_cuda)
  find_package(CUDAToolkit REQUIRED)
  set(_cudart "${CUDAToolkit_LIBRARY_DIR}/libcudart_static.a")
  string(APPEND SNARKD_CAPI_PRIVATE " ${_cudart} -ldl -lrt")
  string(APPEND SNARKD_CAPI_PRIVATE_CMAKE ";${_cudart};dl;rt")
endif()

file(RELATIVE_PATH SNARKD_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
file(RELATIVE_PATH SNARKD_CMAKE_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/cmake/snarkd" "/p")
set(_gen ${PROJECT_BINARY_DIR}/install-files)
configure_file(cmake/snarkd.pc.in ${_gen}/snarkd.pc @ONLY)
configure_file(cmake/snarkd-supraseal.pc.in ${_gen}/snarkd-supraseal.pc @ONLY)
configure_file(cmake/snarkdConfig.cmake.in ${_gen}/snarkdConfig.cmake @ONLY)
write_basic_package_version_file(${_gen}/snarkdConfigVersion.cmake COMPATIBILITY SameMajorVersion)

install(FILES include/snarkd/snarkd.h include/snarkd/supraseal_c2.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/snarkd)
install(TARGETS snarkd_capi snarkd_supraseal LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_BINARY_DIR}/src/snarkd/capi/libsnarkd.a ${PROJECT_BINARY_DIR}/src/snarkd/ffi/libsnarkd_supraseal.a
  DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${_gen}/snarkd.pc ${_gen}/snarkd-supraseal.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${_gen}/snarkdConfig.cmake ${_gen}/snarkdConfigVersion.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/snarkd)

# The build tree as a pkg-config "prefix" for in-tree consumers (the Rust crate's test).
function(_snarkd_build_tree_pc name folder lib private)
  file(WRITE ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc
    "libdir=${PROJECT_BINARY_DIR}/src/snarkd/${folder}\nincludedir=${PROJECT_SOURCE_DIR}/include\n\n"
    "Name: ${name}\nDescription: ${name} (build tree)\nVersion: ${PROJECT_VERSION}\n"
    "Cflags: -I\${includedir}\nLibs: -L\${libdir} -l${lib}\nLibs.private: ${private}\n")
endfunction()
_snarkd_build_tree_pc(snarkd capi snarkd "${SNARKD_CAPI_PRIVATE}")
_snarkd_build_tree_pc(snarkd-supraseal ffi snarkd_supraseal "${SNARKD_SUPRASEAL_PRIVATE}")

# Helpers for the libraries snarkd installs for other programs (libsnarkd_supraseal, libsnarkd).
#
# snarkd_shared_library(<target> OBJECTS <object library> LIBS <static libs...> MAP <version script>)
#   A shared library of the object library's code plus what it uses of LIBS, exporting only the
#   names in the version script (snarkd's C++ symbols stay inside).
# snarkd_static_bundle(<target> OUTPUT <file name> OBJECTS <object library> LIBS <static libs...>)
#   One self-contained archive of the object library and every member of LIBS (ar's MRI
#   "addlib"), so a consumer (cargo's `static=` link kind, a C program) links a single file plus
#   libstdc++; <target> is an IMPORTED library of that archive for use inside this build.
function(snarkd_shared_library name)
  cmake_parse_arguments(L "" "OBJECTS;MAP" "LIBS" ${ARGN})
  add_library(${name} SHARED $<TARGET_OBJECTS:${L_OBJECTS}>)
  target_link_libraries(${name} PRIVATE ${L_LIBS} Threads::Threads)
  target_link_options(${name} PRIVATE "LINKER:--version-script=${L_MAP}" "LINKER:--no-undefined")
  set_target_properties(${name} PROPERTIES LINK_DEPENDS ${L_MAP}
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
endfunction()

function(snarkd_static_bundle name)
  cmake_parse_arguments(B "" "OUTPUT;OBJECTS" "LIBS" ${ARGN})
  add_library(${name}_objects STATIC $<TARGET_OBJECTS:${B_OBJECTS}>)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${B_OUTPUT})
  set(mri ${CMAKE_CURRENT_BINARY_DIR}/${name}.mri)
  set(script "create ${out}\naddlib $<TARGET_FILE:${name}_objects>\n")
  set(deps ${name}_objects)
  foreach(lib ${B_LIBS})
    string(APPEND script "addlib $<TARGET_FILE:${lib}>\n")
    list(APPEND deps $<TARGET_FILE:${lib}>)
  endforeach()
  string(APPEND script "save\nend\n")
  file(GENERATE OUTPUT ${mri} CONTENT "${script}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E rm -f ${out}
    COMMAND ${CMAKE_COMMAND} -DAR=${CMAKE_AR} -DMRI=${mri} -P ${PROJECT_SOURCE_DIR}/cmake/ar_mri.cmake
    DEPENDS ${deps} ${mri} ${PROJECT_SOURCE_DIR}/cmake/ar_mri.cmake
    COMMENT "Bundling ${B_OUTPUT}" VERBATIM)
  add_custom_target(${name}_bundle ALL DEPENDS ${out})
  add_library(${name} STATIC IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES IMPORTED_LOCATION ${out})
  add_dependencies(${name} ${name}_bundle)
endfunction()

# Installation beyond the targets themselves: a relative RPATH so installed programs find
# libclgemm wherever the prefix is moved, the CMake package files (clgemmConfig.cmake and
# clgemmConfigVersion.cmake beside the exported targets) and the pkg-config file clgemm.pc.
include(CMakePackageConfigHelpers)

file(RELATIVE_PATH _clgemm_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
set(CMAKE_INSTALL_RPATH "\$ORIGIN/${_clgemm_bin_to_lib}")

set(CLGEMM_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/clgemm")
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/clgemmConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/clgemmConfig.cmake"
  INSTALL_DESTINATION "${CLGEMM_CMAKE_DIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/clgemmConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/clgemmConfig.cmake"
              "${PROJECT_BINARY_DIR}/clgemmConfigVersion.cmake"
        DESTINATION "${CLGEMM_CMAKE_DIR}")

set(CLGEMM_PKGCONFIG_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH CLGEMM_PC_PREFIX_FROM_PCDIR
     "${CMAKE_INSTALL_PREFIX}/${CLGEMM_PKGCONFIG_DIR}" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" CLGEMM_PC_PREFIX_FROM_PCDIR "${CLGEMM_PC_PREFIX_FROM_PCDIR}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/clgemm.pc.in" "${PROJECT_BINARY_DIR}/clgemm.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/clgemm.pc" DESTINATION "${CLGEMM_PKGCONFIG_DIR}")

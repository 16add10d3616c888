# install() rules: `cmake --install build --prefix PREFIX` writes
#   bin/onnxc                               the compiler (kernel and runtime bitcode embedded)
#   include/onnxc/onnxc_runtime.h           the generic C ABI every compiled model exports
#   lib/cmake/onnxc/onnxcConfig.cmake       find_package(onnxc): targets onnxc::onnxc (the
#                   onnxcConfigVersion.cmake  executable), onnxc::runtime (the header) and
#                   onnxcTargets*.cmake       onnxc_add_model() from onnxcModel.cmake
#                   onnxcModel.cmake
#   lib/pkgconfig/onnxc.pc                  pkg-config: --cflags, variable `onnxc` (the binary)
# (lib is CMAKE_INSTALL_LIBDIR.) Every installed path is computed from the file's own location,
# so the prefix can be moved. Included from the top-level CMakeLists.txt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ONNXC_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/onnxc)

add_library(onnxc_runtime_headers INTERFACE)
set_target_properties(onnxc_runtime_headers PROPERTIES EXPORT_NAME runtime)
target_include_directories(onnxc_runtime_headers INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/runtime_stub>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/onnxc>)
add_library(onnxc::runtime ALIAS onnxc_runtime_headers)

install(TARGETS onnxc onnxc_runtime_headers EXPORT onnxcTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/runtime_stub/onnxc_runtime.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/onnxc)
install(EXPORT onnxcTargets NAMESPACE onnxc:: DESTINATION ${ONNXC_CMAKE_INSTALL_DIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/onnxcConfig.cmake.in ${CMAKE_BINARY_DIR}/package/onnxcConfig.cmake
  INSTALL_DESTINATION ${ONNXC_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/onnxcConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/onnxcConfig.cmake
              ${CMAKE_BINARY_DIR}/package/onnxcConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/onnxcModel.cmake
        DESTINATION ${ONNXC_CMAKE_INSTALL_DIR})

# onnxc.pc finds its prefix from ${pcfiledir} (pkg-config's own variable), unless the install
# directories are absolute.
set(pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ONNXC_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH rel "/prefix/${pc_dir}" "/prefix")
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(ONNXC_PC_PREFIX "\${pcfiledir}/${rel}")
endif()
foreach(dir BINDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(ONNXC_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(ONNXC_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/onnxc.pc.in ${CMAKE_BINARY_DIR}/package/onnxc.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/onnxc.pc DESTINATION ${pc_dir})

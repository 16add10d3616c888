# onnxc_add_model(): compiles an ONNX model with onnxc at build time and makes it a library target.
#
# Installed as lib/cmake/onnxc/onnxcModel.cmake and included by find_package(onnxc); onnxc's own
# build includes it directly (tests/package). It needs the executable target onnxc::onnxc.
#
#   onnxc_add_model(TARGET mynet MODEL mynet.onnx
#                   [NAME c_identifier]        header NAME.h, functions NAME_* (default: TARGET,
#                                              made a C identifier)
#                   [DIMS param=N ...]         onnxc compile --dim, one per entry
#                   [SHAPES input=AxBxC ...]   onnxc compile --shape, one per entry
#                   [TARGET_TRIPLE triple]     onnxc compile --target
#                   [CPU cpu]                  onnxc compile --cpu
#                   [OPTIONS flag ...])        further onnxc compile flags, passed as given
#
# A relative MODEL is relative to CMAKE_CURRENT_SOURCE_DIR. The model is compiled into
# ${CMAKE_CURRENT_BINARY_DIR}/onnxc_models/TARGET/{libNAME.so,NAME.h} when a target linking
# `TARGET` is built, and again only when the model file or the onnxc executable changes.
# `TARGET` is an IMPORTED SHARED library: target_link_libraries(app PRIVATE TARGET) adds the
# header's directory to the include path, links libNAME.so (with a build-tree rpath) and orders
# the compilation before app. The custom target TARGET_onnxc builds just the model. Properties
# ONNXC_MODEL_NAME, ONNXC_MODEL_HEADER and ONNXC_MODEL_DIR on TARGET give the C name, the header
# and the output directory (for install() rules, say).
include_guard(GLOBAL)

function(_onnxc_model_fail text)
  message(FATAL_ERROR "onnxc_add_model: ${text}")
endfunction()

# Checks the parsed arguments (prefix `arg`) of onnxc_add_model; sets `name` in the caller.
function(_onnxc_model_check_args)
  if(arg_UNPARSED_ARGUMENTS)
    _onnxc_model_fail("unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    _onnxc_model_fail("${arg_KEYWORDS_MISSING_VALUES} given without a value")
  endif()
  if(NOT arg_TARGET)
    _onnxc_model_fail("TARGET is required (the name of the library target to create)")
  endif()
  if(NOT arg_MODEL)
    _onnxc_model_fail("MODEL is required (the .onnx file to compile) for target '${arg_TARGET}'")
  endif()
  if(TARGET ${arg_TARGET})
    _onnxc_model_fail("TARGET '${arg_TARGET}' already exists")
  endif()
  if(NOT TARGET onnxc::onnxc)
    _onnxc_model_fail("no target onnxc::onnxc: use find_package(onnxc) first")
  endif()
  set(name ${arg_NAME})
  if(NOT name)
    string(MAKE_C_IDENTIFIER "${arg_TARGET}" name)
  elseif(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _onnxc_model_fail("NAME '${name}' is not a C identifier")
  endif()
  foreach(dim IN LISTS arg_DIMS)
    if(NOT dim MATCHES "^[^=]+=[0-9]+$")
      _onnxc_model_fail("DIMS entry '${dim}' is not PARAM=N (e.g. batch=1)")
    endif()
  endforeach()
  foreach(shape IN LISTS arg_SHAPES)
    if(NOT shape MATCHES "^[^=]+=[0-9]+(x[0-9]+)*$")
      _onnxc_model_fail("SHAPES entry '${shape}' is not INPUT=AxBxC (e.g. image=1x3x224x224)")
    endif()
  endforeach()
  set(name ${name} PARENT_SCOPE)
endfunction()

# Sets `flags` in the caller: the onnxc compile flags for the parsed arguments (prefix `arg`).
function(_onnxc_model_flags)
  set(flags)
  foreach(dim IN LISTS arg_DIMS)
    list(APPEND flags --dim ${dim})
  endforeach()
  foreach(shape IN LISTS arg_SHAPES)
    list(APPEND flags --shape ${shape})
  endforeach()
  if(arg_TARGET_TRIPLE)
    list(APPEND flags --target ${arg_TARGET_TRIPLE})
  endif()
  if(arg_CPU)
    list(APPEND flags --cpu ${arg_CPU})
  endif()
  list(APPEND flags ${arg_OPTIONS})
  set(flags ${flags} PARENT_SCOPE)
endfunction()

function(onnxc_add_model)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;MODEL;NAME;TARGET_TRIPLE;CPU"
                        "DIMS;SHAPES;OPTIONS")
  _onnxc_model_check_args()
  _onnxc_model_flags()
  get_filename_component(model "${arg_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_source_file_property(generated "${model}" GENERATED)
  if(NOT EXISTS "${model}" AND NOT generated)
    _onnxc_model_fail("MODEL '${model}' does not exist (and no custom command here makes it)")
  endif()

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/onnxc_models/${arg_TARGET})
  set(lib ${dir}/lib${name}.so)
  set(header ${dir}/${name}.h)
  file(MAKE_DIRECTORY ${dir}) # INTERFACE_INCLUDE_DIRECTORIES must exist at generate time
  add_custom_command(
    OUTPUT ${lib} ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND onnxc::onnxc compile ${model} -o ${lib} --name ${name} ${flags}
    DEPENDS ${model} onnxc::onnxc
    COMMENT "onnxc: compiling ${model} -> ${lib}"
    VERBATIM)
  add_custom_target(${arg_TARGET}_onnxc DEPENDS ${lib} ${header})

  add_library(${arg_TARGET} SHARED IMPORTED)
  set_target_properties(${arg_TARGET} PROPERTIES
    IMPORTED_LOCATION ${lib}
    IMPORTED_SONAME lib${name}.so
    INTERFACE_INCLUDE_DIRECTORIES ${dir}
    ONNXC_MODEL_NAME ${name}
    ONNXC_MODEL_HEADER ${header}
    ONNXC_MODEL_DIR ${dir})
  add_dependencies(${arg_TARGET} ${arg_TARGET}_onnxc)
endfunction()

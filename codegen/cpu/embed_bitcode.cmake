# Embeds ${CMAKE_BINARY_DIR}/bitcode/{kernels,runtime}_<triple>.bc for every triple in
# ONNXC_TARGET_TRIPLES into the onnxc_codegen_cpu library: an assembly file with one .incbin
# per file (no conversion step, so multi-MB bitcode costs nothing at build time), and a table
# (embedded_bitcode_table.inc) that embedded_bitcode.cpp includes. Labels are hidden.
function(onnxc_embed_bitcode target)
  set(bc_dir "${CMAKE_BINARY_DIR}/bitcode")
  set(asm "")
  set(decls "")
  set(rows "")
  set(bc_files "")
  set(i 0)
  foreach(triple IN LISTS ONNXC_TARGET_TRIPLES)
    set(row "  {\"${triple}\"")
    foreach(kind kernels runtime)
      set(file "${bc_dir}/${kind}_${triple}.bc")
      set(sym "onnxc_embedded_bc_${i}_${kind}")
      list(APPEND bc_files "${file}")
      string(APPEND asm
        "  .section .rodata.${sym},\"a\"\n  .balign 16\n"
        "  .globl ${sym}_begin\n  .hidden ${sym}_begin\n${sym}_begin:\n"
        "  .incbin \"${file}\"\n"
        "  .globl ${sym}_end\n  .hidden ${sym}_end\n${sym}_end:\n  .byte 0\n")
      string(APPEND decls "extern \"C\" const char ${sym}_begin[], ${sym}_end[];\n")
      string(APPEND row ", ${sym}_begin, ${sym}_end")
    endforeach()
    string(APPEND rows "${row}},\n")
    math(EXPR i "${i} + 1")
  endforeach()
  string(APPEND asm "  .section .note.GNU-stack,\"\",@progbits\n")
  if(rows STREQUAL "")
    set(rows "  {nullptr, nullptr, nullptr, nullptr, nullptr},\n")
  endif()
  set(gen "${CMAKE_CURRENT_BINARY_DIR}/generated")
  file(CONFIGURE OUTPUT "${gen}/embedded_bitcode.S" CONTENT "${asm}" @ONLY)
  file(CONFIGURE OUTPUT "${gen}/embedded_bitcode_table.inc"
       CONTENT "${decls}\nconstexpr RawBitcode kRawBitcode[] = {\n${rows}};\n" @ONLY)
  target_sources(${target} PRIVATE "${gen}/embedded_bitcode.S")
  target_include_directories(${target} PRIVATE "${gen}")
  # File-level dependency: the assembler re-runs when any .bc changes (the producers declare
  # the .bc files as OUTPUT/BYPRODUCTS of their custom commands).
  set_source_files_properties("${gen}/embedded_bitcode.S" PROPERTIES OBJECT_DEPENDS "${bc_files}")
endfunction()

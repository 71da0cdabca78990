# idforge_add_library(<part> SOURCES ... [DEPS ...])
# Sets every library up the same way: target idforge_<part>, ALIAS idforge::<part>,
# public headers from include/ in the build tree and from the install prefix once installed.
function(idforge_add_library part)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(idforge_${part} ${ARG_SOURCES})
  add_library(idforge::${part} ALIAS idforge_${part})
  set_target_properties(idforge_${part} PROPERTIES EXPORT_NAME ${part} OUTPUT_NAME idforge_${part})
  target_include_directories(idforge_${part} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(idforge_${part} PUBLIC cxx_std_20)
  target_compile_options(idforge_${part} PRIVATE -Wall -Wextra -Wpedantic $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
  target_link_libraries(idforge_${part} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_property(GLOBAL APPEND PROPERTY IDFORGE_EXPORTED_TARGETS idforge_${part})
endfunction()

# packaging/deb_layout.cmake - run by CPack (CPACK_PRE_BUILD_SCRIPTS) on the staged files before
# it builds the .deb: man pages compressed with `gzip -9n` (Debian policy 12.1: no name or
# timestamp, so the package is reproducible) and the zsh completion moved from
# share/zsh/site-functions (what `cmake --install` uses, for local prefixes) to Debian's
# share/zsh/vendor-completions.  CPACK_TEMPORARY_INSTALL_DIRECTORY is the staging root (one
# subdirectory per component).
function(gzip_n) # FILE...: each replaced by FILE.gz, without name or time stamp
  foreach(_f IN LISTS ARGN)
    execute_process(COMMAND gzip -9nf "${_f}" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "gzip -9n ${_f} failed (${_rc})")
    endif()
  endforeach()
endfunction()

file(GLOB_RECURSE _pages "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.1")
list(FILTER _pages INCLUDE REGEX "/share/man/man1/[^/]+\\.1$")
gzip_n(${_pages})
file(GLOB_RECURSE _zsh "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/_*")
list(FILTER _zsh INCLUDE REGEX "/share/zsh/site-functions/_[^/]+$")
foreach(_z IN LISTS _zsh)
  get_filename_component(_dir "${_z}" DIRECTORY)
  get_filename_component(_name "${_z}" NAME)
  file(MAKE_DIRECTORY "${_dir}/../vendor-completions")
  file(RENAME "${_z}" "${_dir}/../vendor-completions/${_name}")
  file(GLOB _left "${_dir}/*")
  if(NOT _left)
    file(REMOVE_RECURSE "${_dir}")
  endif()
endforeach()
# usr/share/doc/PACKAGE/changelog.gz (Debian policy 12.7: a native package's changelog, in the
# Debian format) and, for gensvd, the user-visible changes (NEWS.md.gz); dated now, or at
# SOURCE_DATE_EPOCH where set (reproducible builds).
string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(GLOB _components LIST_DIRECTORIES true "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*")
foreach(_c IN LISTS _components)
  if(NOT IS_DIRECTORY "${_c}/usr")
    continue()
  endif()
  get_filename_component(_comp "${_c}" NAME)
  set(_pkg gensvd)
  if(_comp STREQUAL "cuda")
    set(_pkg gensvd-cuda)
  elseif(_comp STREQUAL "libgensvd0")
    set(_pkg libgensvd0)
  elseif(_comp STREQUAL "dev")
    set(_pkg libgensvd-dev)
  endif()
  set(_doc "${_c}/usr/share/doc/${_pkg}")
  file(MAKE_DIRECTORY "${_doc}")
  file(WRITE "${_doc}/changelog"
       "${_pkg} (${CPACK_PACKAGE_VERSION}) unstable; urgency=medium\n\n"
       "  * Built from the gensvd sources with CPack; the user-visible changes are in\n"
       "    /usr/share/doc/gensvd/NEWS.md.gz.\n\n"
       " -- ${CPACK_DEBIAN_PACKAGE_MAINTAINER}  ${_date}\n")
  set(_gz "${_doc}/changelog")
  if(_pkg STREQUAL "gensvd")
    file(COPY_FILE "${CPACK_GENSVD_SOURCE_DIR}/NEWS.md" "${_doc}/NEWS.md")
    list(APPEND _gz "${_doc}/NEWS.md")
  endif()
  gzip_n(${_gz})
endforeach()

# packaging/cpack.cmake - `make -C build package` (or `cpack -G DEB --config
# build/CPackConfig.cmake`) builds gensvd_VERSION_ARCH.deb: /usr/bin/gensvd, the man pages
# (gzip -9n, Debian policy 12.1), the bash and zsh completion in Debian's vendor directories;
# and, as Debian splits a library, libgensvd0 (the shared library libgensvd.so.0, named after
# its SONAME, with a shlibs file and the ldconfig trigger) and libgensvd-dev (gensvd.h, the
# libgensvd.so link, libgensvd.a and gensvd.pc; depends on libgensvd0 of the same version).
# The gensvd binary links the engine statically for now, so gensvd does not depend on
# libgensvd0.
# Depends comes from dpkg-shlibdeps (dpkg-dev) over the binary, so it names exactly the
# libraries this build links (libcurl, MPI only when built).  The CUDA module, where built, is
# its own package gensvd-cuda: its CUDA libraries are NVIDIA's, not Debian's, so it depends on
# gensvd only and on no package for them.  Included from the top-level CMakeLists.txt after the
# install rules (components "gensvd" and "cuda", cli/CMakeLists.txt; "libgensvd0" and "dev",
# lib/CMakeLists.txt).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gensvd)
set(CPACK_PACKAGE_VENDOR "gensvd")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "PCA and pairwise distances on genotype Zarr stores")
set(CPACK_PACKAGE_DESCRIPTION
    "gensvd runs principal component analysis, pairwise genetic distances (IBS,\n\
KING, Euclidean and others), LD pruning, projection and relatedness on genotype\n\
data stored as Zarr v2 or v3 (VCF-Zarr from bio2zarr/sgkit, scikit-allel\n\
layouts), local or remote (https, gs, s3, zip), on the CPU with OpenBLAS, and\n\
plots the results as self-contained SVG.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(GENSVD_DEB_MAINTAINER "gensvd maintainers <maintainers@users.noreply.a-seed-c80a2766.example>"
    CACHE STRING "Maintainer field of the .deb")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${GENSVD_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # gensvd_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL gensvd libgensvd0 dev)
set(CPACK_DEBIAN_GENSVD_PACKAGE_NAME gensvd)
set(CPACK_DEBIAN_GENSVD_PACKAGE_SECTION science)
set(CPACK_DEBIAN_LIBGENSVD0_PACKAGE_NAME libgensvd0)
set(CPACK_DEBIAN_LIBGENSVD0_PACKAGE_SECTION libs)
# a shlibs file for the packages holding a shared library (libgensvd0 alone), and ldconfig
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_COMPONENT_LIBGENSVD0_DESCRIPTION
    "The gensvd library: principal components, pairwise distances, LD pruning,\n\
kinship and projection of genotype data stored as Zarr, for programs and\n\
language bindings (include/gensvd.h).")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libgensvd-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF) # a header, an archive, a link, a .pc
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libgensvd0 (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "The development files of the gensvd library: the header gensvd.h, the\n\
libgensvd.so link, the static archive libgensvd.a and gensvd.pc for\n\
pkg-config (static linking needs the -dev packages of its Libs.private).")
if(GSVD_HAVE_CUDA)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
  set(CPACK_DEBIAN_CUDA_PACKAGE_NAME gensvd-cuda)
  set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION science)
  set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF) # libcudart, cuBLAS, cuSOLVER: NVIDIA's toolkit
  set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "gensvd (= ${PROJECT_VERSION})")
  set(CPACK_COMPONENT_CUDA_DESCRIPTION
      "The CUDA backend of gensvd (--device gpu), loaded on demand. It needs the\n\
CUDA runtime, cuBLAS and cuSOLVER of NVIDIA's CUDA toolkit, which Debian does\n\
not package at the version it was built with; install the toolkit from NVIDIA.")
endif()
set(CPACK_COMPONENT_GENSVD_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}") # after the summary
# Debian's layout on the staged files: compressed man pages, zsh's vendor-completions
set(CPACK_GENSVD_SOURCE_DIR ${PROJECT_SOURCE_DIR}) # NEWS.md for deb_layout.cmake
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/deb_layout.cmake)
include(CPack)

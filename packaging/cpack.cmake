# packaging/cpack.cmake - `make -C build package` (or `cpack -G DEB --config
# build/CPackConfig.cmake`) builds gensvd_VERSION_ARCH.deb: /usr/bin/gensvd, the man pages
# (gzip -9n, Debian policy 12.1), the bash and zsh completion in Debian's vendor directories.
# Depends comes from dpkg-shlibdeps (dpkg-dev) over the binary, so it names exactly the
# libraries this build links (libcurl, MPI only when built).  The CUDA module, where built, is
# its own package gensvd-cuda: its CUDA libraries are NVIDIA's, not Debian's, so it depends on
# gensvd only and on no package for them.  Included from the top-level CMakeLists.txt after the
# install rules (components "gensvd" and "cuda", cli/CMakeLists.txt).
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
set(CPACK_COMPONENTS_ALL gensvd)
set(CPACK_DEBIAN_GENSVD_PACKAGE_NAME gensvd)
set(CPACK_DEBIAN_GENSVD_PACKAGE_SECTION science)
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

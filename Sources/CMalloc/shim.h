#ifndef HOTELKIT_CMALLOC_SHIM_H
#define HOTELKIT_CMALLOC_SHIM_H

// glibc's malloc_trim, which Swift's Glibc module does not export.
#include <malloc.h>

#endif

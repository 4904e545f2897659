#ifndef ELIMAGE_CGBM_SHIM_H
#define ELIMAGE_CGBM_SHIM_H
#include <gbm.h>
#endif

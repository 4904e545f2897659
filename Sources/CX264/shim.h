#ifndef ELIMAGE_CX264_SHIM_H
#define ELIMAGE_CX264_SHIM_H
#include <stdint.h>
#include <x264.h>
#endif

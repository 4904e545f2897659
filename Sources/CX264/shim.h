#ifndef ELIMAGE_CX264_SHIM_H
#define ELIMAGE_CX264_SHIM_H
#include <stdint.h>
#include <x264.h>

/* x264.h renames x264_encoder_open to a build-specific symbol (x264_encoder_open_164, ...) that
   Swift would have to call by name; this keeps the code independent of the libx264 build. */
static inline x264_t *elimage_x264_encoder_open(x264_param_t *parameters) {
    return x264_encoder_open(parameters);
}
#endif

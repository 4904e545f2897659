#ifndef ELIMAGE_CFFMPEG_SHIM_H
#define ELIMAGE_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>

/* AVERROR(e) and AVERROR_EOF are macros Swift cannot import. */
static inline int elimage_averror(int errnum) { return AVERROR(errnum); }
static inline int elimage_averror_eof(void) { return AVERROR_EOF; }
#endif

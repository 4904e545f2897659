#ifndef ELIMAGE_CPNG_SHIM_H
#define ELIMAGE_CPNG_SHIM_H
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

/* libpng reports errors by longjmp, which Swift cannot take: the one call of the full API that
   ELImage needs (a 16-bit write, which the simplified API would store as linear light with a
   gAMA of 1.0) is made here, its error message copied for the caller. */
static void elimage_png_error(png_structp png, png_const_charp text) {
    char *message = (char *)png_get_error_ptr(png);
    if (message) {
        strncpy(message, text ? text : "unknown error", 255);
        message[255] = 0;
    }
    png_longjmp(png, 1);
}

static void elimage_png_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

/* Writes `height` rows of `width` pixels of `channels` (3: RGB, 4: RGBA) native-endian 16-bit
   samples, `row_samples` apart, as a 16-bit PNG into `stream` (closed here, on every path). Colour: with `cicp_transfer` 0 no
   colour chunk (the samples are sRGB-encoded by convention); else a `cICP` chunk (PNG's third
   edition) with these H.273 primaries and transfer, RGB, full range: how an HDR picture (PQ, HLG)
   says what it holds. Returns 0, or -1 with libpng's message (or strerror's) in `message` (256
   bytes). */
static inline int elimage_png_write16(FILE *stream, const uint16_t *samples, uint32_t width, uint32_t height,
                                      int channels, size_t row_samples, int cicp_primaries, int cicp_transfer,
                                      char *message) {
    message[0] = 0;
    FILE *volatile file = stream;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, elimage_png_error, elimage_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        strncpy(message, "out of memory", 255);
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 16, channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (cicp_transfer != 0) {
        png_byte cicp[4] = {(png_byte)cicp_primaries, (png_byte)cicp_transfer, 0, 1};
        png_write_chunk(png, (png_const_bytep)"cICP", cicp, 4);
    }
    png_set_swap(png);  /* PNG stores big-endian samples */
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(samples + (size_t)y * row_samples));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    if (fflush(file) != 0 || ferror(file)) {
        strncpy(message, strerror(errno), 255);
        message[255] = 0;
        fclose(file);
        return -1;
    }
    if (fclose(file) != 0) {
        strncpy(message, strerror(errno), 255);
        message[255] = 0;
        return -1;
    }
    return 0;
}
#endif

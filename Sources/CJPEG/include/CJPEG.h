#ifndef HOTELKIT_CJPEG_H
#define HOTELKIT_CJPEG_H

#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <jpeglib.h>

/// libjpeg's default error handler calls exit(). This one longjmps back into
/// the shim function that made the call, which then returns -1 with the
/// message; warnings are counted and the last one kept.
typedef struct hk_jpeg_error_manager {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int warning_count;
    char warning[JMSG_LENGTH_MAX];
} hk_jpeg_error_manager;

typedef struct hk_jpeg_decoder {
    struct jpeg_decompress_struct info;
    hk_jpeg_error_manager error;
} hk_jpeg_decoder;

/// NULL when out of memory.
hk_jpeg_decoder *hk_jpeg_decoder_create(void);
void hk_jpeg_decoder_destroy(hk_jpeg_decoder *decoder);

// Each returns 0 on success and -1 on error, with the reason in error.message.

/// Reads the header from `file` (read as decoding goes; it must outlive the
/// decoder), keeping APP1 markers for EXIF orientation.
int hk_jpeg_read_header(hk_jpeg_decoder *decoder, FILE *file);
/// Starts decompression at 1/scale_denom size into out_color_space.
int hk_jpeg_start(hk_jpeg_decoder *decoder, unsigned int scale_denom, J_COLOR_SPACE out_color_space);
/// Reads up to max_rows rows into buffer, each `stride` bytes apart.
int hk_jpeg_read_rows(hk_jpeg_decoder *decoder, unsigned char *buffer, size_t stride,
                      unsigned int max_rows, unsigned int *rows_read);
int hk_jpeg_finish(hk_jpeg_decoder *decoder);

/// Encodes 8-bit RGB (3 bytes a pixel) as a baseline JPEG; *output is freed
/// with hk_jpeg_free. `message` receives the reason on error.
int hk_jpeg_encode_rgb(const unsigned char *rgb, unsigned int width, unsigned int height, int quality,
                       unsigned char **output, unsigned long *output_size, char message[JMSG_LENGTH_MAX]);
void hk_jpeg_free(unsigned char *buffer);

#endif

#ifndef HOTELKIT_CPNG_H
#define HOTELKIT_CPNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <png.h>

/// The simplified png_image API reports errors instead of calling exit(), and
/// converts every colour type, bit depth, palette, tRNS and interlace to RGBA8.
/// These wrap its macros, which Swift cannot import.

/// Reads the header from `file`, which is read as decoding goes; 0 on error
/// (the reason is in image->message).
int hk_png_begin_read(png_image *image, FILE *file);
/// Decodes into `buffer`, 4 bytes a pixel, `stride` bytes a row; 0 on error.
int hk_png_finish_read_rgba(png_image *image, void *buffer, size_t stride);
/// Whether the image has warnings (image->message holds the last).
int hk_png_has_warning(const png_image *image);

/// Encodes RGBA8 at zlib `level` (0–9) with the full API, whose errors longjmp
/// back here. *output is freed with hk_png_free. Returns 0 on success, -1 on
/// error with the reason in `message`.
int hk_png_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, int level,
                       uint8_t **output, size_t *output_size, char message[128]);
void hk_png_free(uint8_t *buffer);

/// Row-by-row reading from a stream with the full API, transformed to RGBA8,
/// so neither the file nor the image is ever held whole. Interlace handling
/// is left off: an interlaced image's rows come pass by pass, each holding
/// that pass's pixels only (`interlaced` is set), for the caller to place.
typedef struct hk_png_reader {
    png_structp png;
    png_infop info;
    uint32_t width;
    uint32_t height;
    int interlaced;
    int warning_count;
    char message[128];
} hk_png_reader;

/// Reads the header from `file` and sets the transforms; 0 on success, -1 with message.
/// With `verify_checksums` 0, chunk CRCs and the zlib stream's Adler-32 are
/// neither computed nor checked.
int hk_png_reader_open(hk_png_reader *reader, FILE *file, int verify_checksums);
/// Reads the next `count` rows (of the current pass, when interlaced) into
/// `buffer`, `stride` bytes apart; 0 or -1.
int hk_png_reader_read_rows(hk_png_reader *reader, uint8_t *buffer, size_t stride, uint32_t count);
void hk_png_reader_close(hk_png_reader *reader);

#endif

#include "CPNG.h"
#include <stdlib.h>
#include <string.h>

int hk_png_begin_read(png_image *image, FILE *file) {
    memset(image, 0, sizeof *image);
    image->version = PNG_IMAGE_VERSION;
    return png_image_begin_read_from_stdio(image, file);
}

int hk_png_finish_read_rgba(png_image *image, void *buffer, size_t stride) {
    image->format = PNG_FORMAT_RGBA;
    // Untagged 16-bit data is sRGB, as browsers show it; libpng would assume linear.
    image->flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    return png_image_finish_read(image, NULL, buffer, (png_int_32)stride, NULL);
}

int hk_png_has_warning(const png_image *image) {
    return (image->warning_or_error & PNG_IMAGE_WARNING) != 0;
}

typedef struct hk_png_output {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
} hk_png_output;

static void hk_png_write(png_structp png, png_bytep data, png_size_t length) {
    hk_png_output *output = png_get_io_ptr(png);
    if (output->size + length > output->capacity) {
        size_t capacity = output->capacity ? output->capacity * 2 : 4096;
        while (capacity < output->size + length) capacity *= 2;
        uint8_t *grown = realloc(output->bytes, capacity);
        if (!grown) {
            output->failed = 1;
            png_error(png, "out of memory");
        }
        output->bytes = grown;
        output->capacity = capacity;
    }
    memcpy(output->bytes + output->size, data, length);
    output->size += length;
}

static void hk_png_flush(png_structp png) { (void)png; }

static void hk_png_error(png_structp png, png_const_charp text) {
    char *message = png_get_error_ptr(png);
    strncpy(message, text, 127);
    message[127] = 0;
    png_longjmp(png, 1);
}

static void hk_png_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

int hk_png_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, int level,
                       uint8_t **output, size_t *output_size, char message[128]) {
    hk_png_output buffer = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, hk_png_error, hk_png_warning);
    if (!png) { strcpy(message, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(buffer.bytes);
        return -1;
    }
    png_set_write_fn(png, &buffer, hk_png_write, hk_png_flush);
    png_set_compression_level(png, level);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t row = 0; row < height; row++) {
        png_write_row(png, rgba + (size_t)row * width * 4);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *output = buffer.bytes;
    *output_size = buffer.size;
    return 0;
}

void hk_png_free(uint8_t *buffer) {
    free(buffer);
}

static void hk_png_reader_error(png_structp png, png_const_charp text) {
    hk_png_reader *reader = png_get_error_ptr(png);
    strncpy(reader->message, text, sizeof reader->message - 1);
    reader->message[sizeof reader->message - 1] = 0;
    png_longjmp(png, 1);
}

static void hk_png_reader_warning(png_structp png, png_const_charp text) {
    hk_png_reader *reader = png_get_error_ptr(png);
    reader->warning_count++;
    (void)text;
}

int hk_png_reader_open(hk_png_reader *reader, FILE *file, int verify_checksums) {
    memset(reader, 0, sizeof *reader);
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, hk_png_reader_error, hk_png_reader_warning);
    if (!reader->png) { strcpy(reader->message, "out of memory"); return -1; }
    reader->info = png_create_info_struct(reader->png);
    if (!reader->info) { strcpy(reader->message, "out of memory"); return -1; }
    if (setjmp(png_jmpbuf(reader->png))) return -1;
    png_init_io(reader->png, file);
    if (!verify_checksums) {
        png_set_crc_action(reader->png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#ifdef PNG_IGNORE_ADLER32
        png_set_option(reader->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
    }
    png_read_info(reader->png, reader->info);
    reader->width = png_get_image_width(reader->png, reader->info);
    reader->height = png_get_image_height(reader->png, reader->info);
    reader->interlaced = png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE;
    int color_type = png_get_color_type(reader->png, reader->info);
    png_set_expand(reader->png);        /* palette to RGB, low-bit grey to 8, tRNS to alpha */
    png_set_scale_16(reader->png);      /* 16-bit to 8, rounded */
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(reader->png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(reader->png, reader->info, PNG_INFO_tRNS))
        png_set_add_alpha(reader->png, 0xFF, PNG_FILLER_AFTER);
    png_read_update_info(reader->png, reader->info);
    if (png_get_rowbytes(reader->png, reader->info) != (size_t)reader->width * 4) {
        strcpy(reader->message, "unexpected row layout after transforms");
        return -1;
    }
    return 0;
}

int hk_png_reader_read_rows(hk_png_reader *reader, uint8_t *buffer, size_t stride, uint32_t count) {
    if (setjmp(png_jmpbuf(reader->png))) return -1;
    for (uint32_t row = 0; row < count; row++) png_read_row(reader->png, buffer + (size_t)row * stride, NULL);
    return 0;
}

void hk_png_reader_close(hk_png_reader *reader) {
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
}

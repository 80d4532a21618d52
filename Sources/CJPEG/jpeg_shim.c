#include "CJPEG.h"
#include <stdlib.h>
#include <string.h>

static void hk_error_exit(j_common_ptr info) {
    hk_jpeg_error_manager *error = (hk_jpeg_error_manager *)info->err;
    error->base.format_message(info, error->message);
    longjmp(error->jump, 1);
}

static void hk_emit_message(j_common_ptr info, int level) {
    hk_jpeg_error_manager *error = (hk_jpeg_error_manager *)info->err;
    if (level < 0) { // a warning, such as data ending mid-scan
        error->warning_count++;
        error->base.format_message(info, error->warning);
    }
}

static void hk_output_message(j_common_ptr info) {
    (void)info; // never print: messages are returned to the caller
}

static void hk_install(hk_jpeg_error_manager *error, struct jpeg_error_mgr **slot) {
    *slot = jpeg_std_error(&error->base);
    error->base.error_exit = hk_error_exit;
    error->base.emit_message = hk_emit_message;
    error->base.output_message = hk_output_message;
    error->message[0] = 0;
    error->warning[0] = 0;
    error->warning_count = 0;
}

hk_jpeg_decoder *hk_jpeg_decoder_create(void) {
    hk_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    hk_install(&decoder->error, &decoder->info.err);
    if (setjmp(decoder->error.jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    return decoder;
}

void hk_jpeg_decoder_destroy(hk_jpeg_decoder *decoder) {
    if (!decoder) return;
    jpeg_destroy_decompress(&decoder->info);
    free(decoder);
}

int hk_jpeg_read_header(hk_jpeg_decoder *decoder, FILE *file) {
    if (setjmp(decoder->error.jump)) return -1;
    jpeg_stdio_src(&decoder->info, file);
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&decoder->info, TRUE);
    return 0;
}

int hk_jpeg_start(hk_jpeg_decoder *decoder, unsigned int scale_denom, J_COLOR_SPACE out_color_space) {
    if (setjmp(decoder->error.jump)) return -1;
    decoder->info.scale_num = 1;
    decoder->info.scale_denom = scale_denom;
    decoder->info.out_color_space = out_color_space;
    decoder->info.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&decoder->info);
    return 0;
}

int hk_jpeg_read_rows(hk_jpeg_decoder *decoder, unsigned char *buffer, size_t stride,
                      unsigned int max_rows, unsigned int *rows_read) {
    *rows_read = 0;
    if (setjmp(decoder->error.jump)) return -1;
    while (*rows_read < max_rows && decoder->info.output_scanline < decoder->info.output_height) {
        JSAMPROW row = buffer + (size_t)(*rows_read) * stride;
        *rows_read += jpeg_read_scanlines(&decoder->info, &row, 1);
    }
    return 0;
}

int hk_jpeg_finish(hk_jpeg_decoder *decoder) {
    if (setjmp(decoder->error.jump)) return -1;
    jpeg_finish_decompress(&decoder->info);
    return 0;
}

int hk_jpeg_encode_rgb(const unsigned char *rgb, unsigned int width, unsigned int height, int quality,
                       unsigned char **output, unsigned long *output_size, char message[JMSG_LENGTH_MAX]) {
    struct jpeg_compress_struct info;
    hk_jpeg_error_manager error;
    *output = NULL;
    *output_size = 0;
    hk_install(&error, &info.err);
    if (setjmp(error.jump)) {
        memcpy(message, error.message, JMSG_LENGTH_MAX);
        jpeg_destroy_compress(&info);
        free(*output);
        *output = NULL;
        return -1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, output, output_size);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * width * 3);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    return 0;
}

void hk_jpeg_free(unsigned char *buffer) {
    free(buffer);
}

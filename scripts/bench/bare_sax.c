/* The ceiling for any libxml2 SAX consumer: the same push parser, options and
 * chunk size as HotelKit's reader, with callbacks that do nothing. */
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long elements;

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
    (void)ctx; (void)localname; (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces;
    (void)nb_attributes; (void)nb_defaulted; (void)attributes;
    elements++;
}
static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)ctx; (void)localname; (void)prefix; (void)uri;
}
static void on_characters(void *ctx, const xmlChar *text, int length) {
    (void)ctx; (void)text; (void)length;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: bare_sax FILE\n"); return 64; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 66; }
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_characters;
    sax.cdataBlock = on_characters;
    xmlParserCtxtPtr context = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, NULL);
    xmlCtxtUseOptions(context, XML_PARSE_NONET);
    static char buffer[256 * 1024];
    size_t count;
    int status = 0;
    while (status == 0 && (count = fread(buffer, 1, sizeof buffer, file)) > 0)
        status = xmlParseChunk(context, buffer, (int)count, 0);
    if (status == 0) status = xmlParseChunk(context, NULL, 0, 1);
    printf("{\"elements\": %lu, \"status\": %d}\n", elements, status);
    xmlFreeParserCtxt(context);
    fclose(file);
    return status == 0 ? 0 : 65;
}

#ifndef HOTELKIT_CLIBXML2_SHIM_H
#define HOTELKIT_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU; its ICU types then clash with Foundation's
// own ICU module ("'UErrorCode' has different definitions in different
// modules"). HotelKit decodes through iconv, so the ICU declarations go.
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/dict.h>

/// `xmlFree` is a global function pointer that Swift 6 refuses as shared
/// mutable state; this gives Swift a plain function to call.
static inline void hk_xml_free(void *pointer) {
    xmlFree(pointer);
}

/// An external entity loader that loads nothing. Installed process-wide so no
/// parse, ours or a caller's, can be made to read a file or a URL.
static inline xmlParserInputPtr hk_xml_refuse_entity(const char *url, const char *id,
                                                     xmlParserCtxtPtr context) {
    (void)url; (void)id; (void)context;
    return NULL;
}

static inline void hk_xml_install_refusing_entity_loader(void) {
    xmlSetExternalEntityLoader(hk_xml_refuse_entity);
}

#endif

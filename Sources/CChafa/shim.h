#ifndef HOTELKIT_CCHAFA_SHIM_H
#define HOTELKIT_CCHAFA_SHIM_H

#include <chafa.h>

// chafa returns its text in a GString. From glib 2.76 `g_string_free` is a
// macro (it picks g_string_free_and_steal when it can), which Swift cannot
// call: this gives Swift one plain function that frees the string and its bytes.
static inline void hk_chafa_gstring_free(GString *string) {
    g_string_free(string, TRUE);
}

#endif

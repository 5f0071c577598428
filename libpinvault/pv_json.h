/*
 * A strict, bounded JSON reader for pinvaultd's replies: a cursor over one frame,
 * read in document order by the caller (no tree, no allocation).
 *
 * Contract: every function reads only inside [pos, end), never past it, whatever
 * the bytes are; those returning int give 0 on success and -1 on anything that is not JSON
 * (RFC 8259) or breaks a bound below, and after -1 the cursor is not to be used.
 * Strings must be well-formed UTF-8; "\u0000" is refused (no value we read needs
 * it, and C strings could not carry it). Nesting deeper than PV_JSON_MAX_DEPTH is
 * refused, so skipping a value recurses at most that deep.
 */
#ifndef PV_JSON_H
#define PV_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest nesting accepted (the daemon's own bound, ProtocolLimits.maxJSONDepth). */
#define PV_JSON_MAX_DEPTH 32
/* Longest number literal accepted, in characters. */
#define PV_JSON_MAX_NUMBER 64

struct pv_json {
    const unsigned char *pos;
    const unsigned char *end;
    unsigned depth;
};

void pv_json_init(struct pv_json *json, const unsigned char *data, size_t length);

/* Enters the object ('{') or array ('[') that comes next. */
int pv_json_enter(struct pv_json *json, char open);

/*
 * The next member of the object entered last. `*first` starts at true and is kept
 * by the caller per object. Sets *more to false at the closing '}' (and leaves the
 * object); else reads the key into `key` (NUL-terminated) and the ':' after it.
 * A key too long for `capacity` is read in full and reported with `*key_length`
 * past capacity, so that it matches no known key.
 */
int pv_json_member(struct pv_json *json, bool *first, bool *more,
                   char *key, size_t capacity, size_t *key_length);

/* The next element of the array entered last: *more false at the closing ']'. */
int pv_json_element(struct pv_json *json, bool *first, bool *more);

/*
 * A string value, unescaped into `out` (NUL-terminated; `capacity` includes the
 * NUL). A string that does not fit is an error. `out` may be NULL to only check it.
 */
int pv_json_string(struct pv_json *json, char *out, size_t capacity, size_t *length);

/* An integer (no fraction, no exponent) within [min, max]. */
int pv_json_int(struct pv_json *json, int64_t min, int64_t max, int64_t *out);

int pv_json_bool(struct pv_json *json, bool *out);

/* True (and consumed) when the next value is `null`. */
bool pv_json_null(struct pv_json *json);

/* Checks and passes over the next value, whatever it is. */
int pv_json_skip(struct pv_json *json);

/* Only whitespace is left. */
int pv_json_finish(struct pv_json *json);

/* Whether `bytes` are well-formed UTF-8 (RFC 3629), as every JSON string we send must be. */
bool pv_json_utf8_valid(const unsigned char *bytes, size_t count);

#endif

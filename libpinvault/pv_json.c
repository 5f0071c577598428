/* The strict JSON reader (pv_json.h). */
#include "pv_json.h"

#include <string.h>

void pv_json_init(struct pv_json *json, const unsigned char *data, size_t length)
{
    json->pos = data;
    json->end = data + length;
    json->depth = 0;
}

static void skip_whitespace(struct pv_json *json)
{
    while (json->pos < json->end &&
           (*json->pos == ' ' || *json->pos == '\t' || *json->pos == '\n' || *json->pos == '\r'))
        json->pos++;
}

/* The next significant byte, not consumed; -1 at the end. */
static int peek(struct pv_json *json)
{
    skip_whitespace(json);
    return json->pos < json->end ? *json->pos : -1;
}

static int expect(struct pv_json *json, char c)
{
    if (peek(json) != (unsigned char)c)
        return -1;
    json->pos++;
    return 0;
}

int pv_json_enter(struct pv_json *json, char open)
{
    if ((open != '{' && open != '[') || json->depth >= PV_JSON_MAX_DEPTH)
        return -1;
    if (expect(json, open) != 0)
        return -1;
    json->depth++;
    return 0;
}

/* Shared by members and elements: a ',' between entries, `close` at the end. */
static int next_entry(struct pv_json *json, bool *first, bool *more, char close)
{
    int c = peek(json);
    if (c == (unsigned char)close) {
        json->pos++;
        json->depth--;
        *more = false;
        return 0;
    }
    if (!*first) {
        if (c != ',')
            return -1;
        json->pos++;
        /* A ',' must be followed by an entry, never by the closing bracket. */
        if (peek(json) == (unsigned char)close)
            return -1;
    }
    if (peek(json) < 0)
        return -1;
    *first = false;
    *more = true;
    return 0;
}

/* Appends `count` bytes when they fit before the NUL's place; counts them either way. */
static void put(char *out, size_t capacity, size_t *length, const unsigned char *bytes, size_t count)
{
    if (out != NULL && *length + count < capacity)
        memcpy(out + *length, bytes, count);
    *length += count;
}

static int hex4(const unsigned char *p, unsigned *value)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *value = v;
    return 0;
}

static size_t encode_utf8(unsigned code, unsigned char bytes[4])
{
    if (code < 0x80) {
        bytes[0] = (unsigned char)code;
        return 1;
    }
    if (code < 0x800) {
        bytes[0] = (unsigned char)(0xC0 | (code >> 6));
        bytes[1] = (unsigned char)(0x80 | (code & 0x3F));
        return 2;
    }
    if (code < 0x10000) {
        bytes[0] = (unsigned char)(0xE0 | (code >> 12));
        bytes[1] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
        bytes[2] = (unsigned char)(0x80 | (code & 0x3F));
        return 3;
    }
    bytes[0] = (unsigned char)(0xF0 | (code >> 18));
    bytes[1] = (unsigned char)(0x80 | ((code >> 12) & 0x3F));
    bytes[2] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
    bytes[3] = (unsigned char)(0x80 | (code & 0x3F));
    return 4;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629), 0 when ill-formed. */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t need;
    unsigned char low = 0x80, high = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        need = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0)
            low = 0xA0; /* no overlong forms */
        if (c == 0xED)
            high = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0)
            low = 0x90;
        if (c == 0xF4)
            high = 0x8F; /* nothing past U+10FFFF */
    } else
        return 0;
    if ((size_t)(end - p) < need)
        return 0;
    if (p[1] < low || p[1] > high)
        return 0;
    for (size_t i = 2; i < need; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return need;
}

bool pv_json_utf8_valid(const unsigned char *bytes, size_t count)
{
    const unsigned char *end = bytes + count;
    for (const unsigned char *p = bytes; p < end;) {
        size_t n = utf8_sequence(p, end);
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

/* Reads a string; `*length` is its full decoded length even past `capacity`. */
static int read_string(struct pv_json *json, char *out, size_t capacity, size_t *length)
{
    *length = 0;
    if (expect(json, '"') != 0)
        return -1;
    while (json->pos < json->end) {
        unsigned char c = *json->pos;
        if (c == '"') {
            json->pos++;
            if (out != NULL && capacity > 0)
                out[*length < capacity ? *length : capacity - 1] = '\0';
            return 0;
        }
        if (c < 0x20)
            return -1;
        if (c != '\\') {
            size_t n = utf8_sequence(json->pos, json->end);
            if (n == 0)
                return -1;
            put(out, capacity, length, json->pos, n);
            json->pos += n;
            continue;
        }
        if (json->end - json->pos < 2)
            return -1;
        unsigned char e = json->pos[1];
        json->pos += 2;
        unsigned char single;
        switch (e) {
        case '"': single = '"'; break;
        case '\\': single = '\\'; break;
        case '/': single = '/'; break;
        case 'b': single = '\b'; break;
        case 'f': single = '\f'; break;
        case 'n': single = '\n'; break;
        case 'r': single = '\r'; break;
        case 't': single = '\t'; break;
        case 'u': {
            unsigned code;
            if (json->end - json->pos < 4 || hex4(json->pos, &code) != 0)
                return -1;
            json->pos += 4;
            if (code >= 0xDC00 && code <= 0xDFFF)
                return -1; /* a low surrogate alone */
            if (code >= 0xD800 && code <= 0xDBFF) {
                unsigned low;
                if (json->end - json->pos < 6 || json->pos[0] != '\\' || json->pos[1] != 'u' ||
                    hex4(json->pos + 2, &low) != 0 || low < 0xDC00 || low > 0xDFFF)
                    return -1;
                json->pos += 6;
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            }
            if (code == 0)
                return -1;
            unsigned char bytes[4];
            put(out, capacity, length, bytes, encode_utf8(code, bytes));
            continue;
        }
        default:
            return -1;
        }
        put(out, capacity, length, &single, 1);
    }
    return -1;
}

int pv_json_member(struct pv_json *json, bool *first, bool *more,
                   char *key, size_t capacity, size_t *key_length)
{
    if (capacity == 0 || next_entry(json, first, more, '}') != 0)
        return -1;
    if (!*more)
        return 0;
    if (read_string(json, key, capacity, key_length) != 0)
        return -1;
    if (*key_length >= capacity)
        key[0] = '\0'; /* too long for any key we know */
    return expect(json, ':');
}

int pv_json_element(struct pv_json *json, bool *first, bool *more)
{
    return next_entry(json, first, more, ']');
}

int pv_json_string(struct pv_json *json, char *out, size_t capacity, size_t *length)
{
    size_t n;
    if (read_string(json, out, capacity, &n) != 0)
        return -1;
    if (out != NULL && n >= capacity)
        return -1;
    if (length != NULL)
        *length = n;
    return 0;
}

/* Scans a number literal of the JSON grammar; sets *integral when it has no fraction or exponent. */
static int scan_number(struct pv_json *json, const unsigned char **start, size_t *count, bool *integral)
{
    if (peek(json) < 0)
        return -1;
    const unsigned char *p = json->pos, *end = json->end;
    *start = p;
    *integral = true;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        return -1;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    else
        return -1;
    if (p < end && *p == '.') {
        *integral = false;
        p++;
        if (p >= end || *p < '0' || *p > '9')
            return -1;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        *integral = false;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return -1;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    *count = (size_t)(p - *start);
    if (*count > PV_JSON_MAX_NUMBER)
        return -1;
    json->pos = p;
    return 0;
}

int pv_json_int(struct pv_json *json, int64_t min, int64_t max, int64_t *out)
{
    const unsigned char *start;
    size_t count;
    bool integral;
    if (scan_number(json, &start, &count, &integral) != 0 || !integral)
        return -1;
    bool negative = start[0] == '-';
    /* Accumulate toward the sign, refusing anything past int64's range. */
    int64_t value = 0;
    for (size_t i = negative ? 1 : 0; i < count; i++) {
        int digit = start[i] - '0';
        if (negative) {
            if (value < (INT64_MIN + digit) / 10)
                return -1;
            value = value * 10 - digit;
        } else {
            if (value > (INT64_MAX - digit) / 10)
                return -1;
            value = value * 10 + digit;
        }
    }
    if (value < min || value > max)
        return -1;
    *out = value;
    return 0;
}

static int literal(struct pv_json *json, const char *word)
{
    size_t n = strlen(word);
    if (peek(json) < 0 || (size_t)(json->end - json->pos) < n || memcmp(json->pos, word, n) != 0)
        return -1;
    json->pos += n;
    return 0;
}

int pv_json_bool(struct pv_json *json, bool *out)
{
    int c = peek(json);
    if (c == 't' && literal(json, "true") == 0) {
        *out = true;
        return 0;
    }
    if (c == 'f' && literal(json, "false") == 0) {
        *out = false;
        return 0;
    }
    return -1;
}

bool pv_json_null(struct pv_json *json)
{
    return peek(json) == 'n' && literal(json, "null") == 0;
}

int pv_json_skip(struct pv_json *json)
{
    bool first = true, more = true;
    size_t n;
    switch (peek(json)) {
    case '{': {
        char key[1];
        if (pv_json_enter(json, '{') != 0)
            return -1;
        for (;;) {
            if (pv_json_member(json, &first, &more, key, sizeof key, &n) != 0)
                return -1;
            if (!more)
                return 0;
            if (pv_json_skip(json) != 0)
                return -1;
        }
    }
    case '[':
        if (pv_json_enter(json, '[') != 0)
            return -1;
        for (;;) {
            if (pv_json_element(json, &first, &more) != 0)
                return -1;
            if (!more)
                return 0;
            if (pv_json_skip(json) != 0)
                return -1;
        }
    case '"':
        return read_string(json, NULL, 0, &n);
    case 't':
        return literal(json, "true");
    case 'f':
        return literal(json, "false");
    case 'n':
        return literal(json, "null");
    default: {
        const unsigned char *start;
        bool integral;
        return scan_number(json, &start, &n, &integral);
    }
    }
}

int pv_json_finish(struct pv_json *json)
{
    return peek(json) < 0 && json->depth == 0 ? 0 : -1;
}

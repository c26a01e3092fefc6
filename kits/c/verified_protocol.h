/* verified_protocol.h: the client side of verified's JSON-lines protocol
 * (docs/protocol.md) in one C99 header, so that an adapter from a compiler's
 * parallel-move resolver to `verified conform` is a page of code.
 *
 * Use (stb style): in exactly one C file
 *
 *     #define VERIFIED_PROTOCOL_IMPLEMENTATION
 *     #include "verified_protocol.h"
 *
 * and include it plainly everywhere else.  The adapter loop:
 *
 *     vp_reader *r = vp_open(stdin, stdout);
 *     const vp_request *q;
 *     int rc;
 *     while ((rc = vp_read(r, &q)) != 0) {
 *         if (rc < 0) { vp_answer_error(r, vp_error(r)); continue; }
 *         vp_begin(r);
 *         for (i = 0; i < q->nmoves; i++)                  (not a real resolver)
 *             vp_mov(r, &q->moves[i].dst, &q->moves[i].src);
 *         vp_end(r);                          one line, flushed
 *     }
 *     vp_close(r);
 *
 * What the reader accepts (one request per line; a line of only whitespace
 * is skipped and gets no answer):
 *   "moves"     [[dst, src], ...]         required
 *   "model"     string                    required unless "machine" is given
 *   "temps"     [loc, ...]                default []
 *   "registers" integer >= 0 or null      -1 when absent
 *   "preserve"  string                    default "all"
 *   "machine"   a preset name (string) or an object (kept as raw JSON text)
 *   "id"        any JSON value, kept as raw text and echoed first in answers
 *   anything else (e.g. "sequence") is checked to be valid JSON and skipped.
 * A location is a register number (3 = r3, 0..2147483647), a name ("rax",
 * "m0", "r3"), a non-empty list of names (["a0", "a1"]), and as a move
 * source only an immediate {"imm": k}, k a 64-bit signed integer.
 *
 * Every line must be strict JSON (RFC 8259): no NaN, no trailing commas,
 * valid UTF-8, no lone surrogate escapes.  Values nest at most VP_MAX_DEPTH
 * arrays/objects deep, the request object included (nothing recurses, so a
 * hostile line cannot exhaust the stack; deeper lines get an error).  Lines
 * and arrays have no length limit: buffers grow.  A line that breaks a rule
 * makes vp_read return -1 with a message naming the line and what to fix;
 * the next call reads the next line.
 *
 * Memory: everything a request points to lives until the next vp_read or
 * vp_close.  No global state; one reader per thread.
 */
#ifndef VERIFIED_PROTOCOL_H
#define VERIFIED_PROTOCOL_H

#include <stddef.h>
#include <stdio.h>

#ifndef VP_MAX_DEPTH
#define VP_MAX_DEPTH 64
#endif

enum vp_kind {
    VP_REG,  /* num: register number (3 is r3) */
    VP_NAME, /* name: "rax", "m0", "t", or "r3" as written */
    VP_LIST, /* names[0..count-1]: a multi-register value */
    VP_IMM   /* num: an immediate (move sources only) */
};

/* A location, kept in the form it came in so answers can write it back. */
typedef struct vp_loc {
    enum vp_kind kind;
    long long num;
    const char *name;
    const char *const *names;
    size_t count;
} vp_loc;

typedef struct vp_move {
    vp_loc dst, src;
} vp_move;

typedef struct vp_request {
    const char *model;        /* "temp", "swap", "permi", "spill", ...; NULL if absent */
    const char *preserve;     /* "all" (the default) or "loops" */
    long registers;           /* the register file r0..r{n-1}; -1 when absent */
    const vp_move *moves;     /* the parallel move */
    size_t nmoves;
    const vp_loc *temps;      /* declared temporaries */
    size_t ntemps;
    const char *machine;      /* a preset name such as "x86-64", or NULL */
    const char *machine_json; /* raw JSON text of a "machine" object, or NULL */
    const char *id;           /* raw JSON text of "id", or NULL */
} vp_request;

typedef struct vp_reader vp_reader;

/* A reader of requests from `in` that answers on `out`; NULL when out of memory. */
vp_reader *vp_open(FILE *in, FILE *out);
void vp_close(vp_reader *r);

/* The next request: 1 (and *req set), 0 at end of input (or a read error),
 * -1 for a line that is not a valid request: answer it with
 * vp_answer_error(r, vp_error(r)) (which echoes its "id" when that could be
 * read) and call vp_read again. */
int vp_read(vp_reader *r, const vp_request **req);
const char *vp_error(const vp_reader *r);
/* Raw JSON text of the last line's "id" (also after -1 when the line was
 * JSON), or NULL. */
const char *vp_id(const vp_reader *r);

/* Do a and b name the same location?  A register number and its name are
 * the same (3 and "r3"); lists are equal element by element.  Overlap
 * (a list sharing a register with a name, aliases) is the caller's business. */
int vp_loc_equal(const vp_loc *a, const vp_loc *b);

/* The answer to the last request read: vp_begin, any number of operations,
 * vp_end, which writes {"id": ..., "sequence": [...]} as one line and
 * flushes.  Or, instead of vp_end (even after vp_begin), one of the
 * vp_answer_* lines.  Each returns 0, or -1 when `out` fails. */
void vp_begin(vp_reader *r);
void vp_mov(vp_reader *r, const vp_loc *dst, const vp_loc *src);
void vp_swap(vp_reader *r, const vp_loc *a, const vp_loc *b);
void vp_perm(vp_reader *r, const vp_move *pairs, size_t n);
void vp_load(vp_reader *r, const vp_loc *reg, const vp_loc *slot);
void vp_store(vp_reader *r, const vp_loc *reg, const vp_loc *slot);
int vp_end(vp_reader *r);
int vp_answer_unsupported(vp_reader *r, const char *why);
int vp_answer_error(vp_reader *r, const char *why);

#endif /* VERIFIED_PROTOCOL_H */

/* ======================================================================== */

#if defined(VERIFIED_PROTOCOL_IMPLEMENTATION) && !defined(VERIFIED_PROTOCOL_DONE)
#define VERIFIED_PROTOCOL_DONE

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define VP__MAX_REGISTER 2147483647LL

/* Strings and name lists of one request live in a chain of blocks, freed
 * (all but the newest) when the next line is read. */
struct vp__block {
    struct vp__block *next;
    size_t used, cap;
};
#define VP__HDR ((sizeof(struct vp__block) + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *))

struct vp_reader {
    FILE *in, *out;
    char *line;                 /* the current line, without its newline */
    size_t len, cap, pos;       /* pos: the parse cursor */
    unsigned long lineno;
    vp_request req;
    vp_move *moves;
    size_t moves_cap;
    vp_loc *temps;
    size_t temps_cap;
    const char **names;         /* scratch for one list of names */
    size_t names_len, names_cap;
    struct vp__block *arena;
    int oom;
    int seen[7];                /* which known fields (vp__fields) the line had */
    char msg[512];              /* the latest failure */
    char err[512];              /* what vp_error returns */
    int sem;                    /* err is a semantic error (the line was JSON) */
    char *ans;                  /* the answer being built */
    size_t ans_len, ans_cap, nops;
    int ans_oom;
};

static int vp__grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    void **p = (void **)pp;
    size_t n = *cap ? *cap : 16;
    void *q;
    if (need <= *cap)
        return 0;
    while (n < need) {
        if (n > ((size_t)-1) / 2 / elem)
            return -1;
        n *= 2;
    }
    q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static void *vp__alloc(vp_reader *r, size_t size)
{
    struct vp__block *b = r->arena;
    size = (size + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *);
    if (!b || b->cap - b->used < size) {
        size_t cap = b ? 2 * b->cap : 4096;
        if (cap < size)
            cap = size;
        if (cap > (size_t)-1 - VP__HDR || !(b = (struct vp__block *)malloc(VP__HDR + cap))) {
            r->oom = 1;
            return NULL;
        }
        b->next = r->arena;
        b->used = 0;
        b->cap = cap;
        r->arena = b;
    }
    b->used += size;
    return (char *)b + VP__HDR + b->used - size;
}

static void vp__arena_reset(vp_reader *r, int all)
{
    struct vp__block *b = r->arena, *next;
    if (!b)
        return;
    for (next = b->next; next; next = b) {
        b = next->next;
        free(next);
    }
    r->arena->next = NULL;
    r->arena->used = 0;
    if (all) {
        free(r->arena);
        r->arena = NULL;
    }
}

vp_reader *vp_open(FILE *in, FILE *out)
{
    vp_reader *r = (vp_reader *)calloc(1, sizeof *r);
    if (r) {
        r->in = in;
        r->out = out;
    }
    return r;
}

void vp_close(vp_reader *r)
{
    if (!r)
        return;
    vp__arena_reset(r, 1);
    free(r->line);
    free(r->moves);
    free(r->temps);
    free(r->names);
    free(r->ans);
    free(r);
}

const char *vp_error(const vp_reader *r) { return r->err; }
const char *vp_id(const vp_reader *r) { return r->req.id; }

/* ---- failures ---------------------------------------------------------- */

static int vp__fail(vp_reader *r, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->msg, sizeof r->msg, "line %lu: ", r->lineno);
    va_start(ap, fmt);
    vsnprintf(r->msg + n, sizeof r->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int vp__syntax(vp_reader *r, const char *what)
{
    return vp__fail(r, "invalid JSON at byte %lu%s: %s", (unsigned long)r->pos + 1,
                    r->pos >= r->len ? " (end of line)" : "", what);
}

/* No value starts at pos. */
static int vp__no_value(vp_reader *r)
{
    size_t p = r->pos + (r->pos < r->len && r->line[r->pos] == '-');
    int c = p < r->len ? r->line[p] : -1;
    return vp__syntax(r, c == 'N' || c == 'I' ? "NaN and Infinity are not JSON values"
                                              : "expected a value");
}

/* The raw text line[from..to), clipped, for messages. */
static const char *vp__clip(vp_reader *r, size_t from, size_t to, char *buf, size_t size)
{
    size_t n = to - from, keep = n > 40 ? 40 : n;
    snprintf(buf, size, n > 40 ? "%.*s... (%lu bytes)" : "%.*s", (int)keep, r->line + from,
             (unsigned long)n);
    return buf;
}

/* ---- scanning ---------------------------------------------------------- */

static int vp__peek(const vp_reader *r)
{
    return r->pos < r->len ? (unsigned char)r->line[r->pos] : -1;
}

static void vp__ws(vp_reader *r)
{
    int c;
    while ((c = vp__peek(r)) == ' ' || c == '\t' || c == '\r' || c == '\n')
        r->pos++;
}

static int vp__expect(vp_reader *r, int c, const char *what)
{
    vp__ws(r);
    if (vp__peek(r) != c)
        return vp__syntax(r, what);
    r->pos++;
    return 0;
}

/* Length of the valid UTF-8 sequence at s[0..n) (1 for ASCII), 0 if invalid. */
static size_t vp__utf8(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t len, i;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F; /* no UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

static int vp__hex4(vp_reader *r, size_t at, unsigned *out)
{
    unsigned v = 0;
    size_t i;
    for (i = 0; i < 4; i++) {
        int c = at + i < r->len ? (unsigned char)r->line[at + i] : -1, d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 0;
}

/* A string at pos (the opening quote).  With `out`, decodes it into a new
 * NUL-terminated copy (*len: its length; an embedded \u0000 makes
 * strlen(*out) < *len).  Without, only checks it. */
static int vp__string(vp_reader *r, char **out, size_t *len)
{
    size_t start = r->pos + 1, i, n = 0;
    char *d = NULL;
    if (vp__peek(r) != '"')
        return vp__syntax(r, "expected a string");
    if (out) {
        size_t end = start;
        while (end < r->len && r->line[end] != '"')
            end += r->line[end] == '\\' ? 2 : 1;
        if (!(d = (char *)vp__alloc(r, end - start + 1)))
            return vp__fail(r, "out of memory");
    }
    for (i = start;;) {
        unsigned char c;
        if (i >= r->len) {
            r->pos = i;
            return vp__syntax(r, "unterminated string");
        }
        c = (unsigned char)r->line[i];
        if (c == '"')
            break;
        if (c < 0x20) {
            r->pos = i;
            return vp__syntax(r, "control character in a string (write it as \\n, \\t or \\u00XX)");
        }
        if (c == '\\') {
            int e = i + 1 < r->len ? (unsigned char)r->line[i + 1] : -1;
            unsigned u, lo;
            const char *simple = e > 0 ? strchr("\"\\/bfnrt", e) : NULL;
            if (simple) {
                if (d)
                    d[n++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
                i += 2;
                continue;
            }
            r->pos = i;
            if (e != 'u')
                return vp__syntax(r, "invalid escape in a string");
            if (vp__hex4(r, i + 2, &u))
                return vp__syntax(r, "\\u needs four hex digits");
            i += 6;
            if (u >= 0xDC00 && u <= 0xDFFF)
                return vp__syntax(r, "lone low surrogate \\uDC00..\\uDFFF");
            if (u >= 0xD800 && u <= 0xDBFF) {
                if (i + 1 >= r->len || r->line[i] != '\\' || r->line[i + 1] != 'u' ||
                    vp__hex4(r, i + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return vp__syntax(r, "high surrogate not followed by a low surrogate \\uDC00..\\uDFFF");
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            if (d) {
                if (u < 0x80)
                    d[n++] = (char)u;
                else if (u < 0x800) {
                    d[n++] = (char)(0xC0 | u >> 6);
                    d[n++] = (char)(0x80 | (u & 0x3F));
                } else if (u < 0x10000) {
                    d[n++] = (char)(0xE0 | u >> 12);
                    d[n++] = (char)(0x80 | (u >> 6 & 0x3F));
                    d[n++] = (char)(0x80 | (u & 0x3F));
                } else {
                    d[n++] = (char)(0xF0 | u >> 18);
                    d[n++] = (char)(0x80 | (u >> 12 & 0x3F));
                    d[n++] = (char)(0x80 | (u >> 6 & 0x3F));
                    d[n++] = (char)(0x80 | (u & 0x3F));
                }
            }
            continue;
        }
        {
            size_t k = vp__utf8((const unsigned char *)r->line + i, r->len - i);
            if (!k) {
                r->pos = i;
                return vp__syntax(r, "invalid UTF-8 in a string");
            }
            if (d)
                memcpy(d + n, r->line + i, k);
            n += k;
            i += k;
        }
    }
    r->pos = i + 1;
    if (d) {
        d[n] = '\0';
        *out = d;
        *len = n;
    }
    return 0;
}

/* A number at pos (JSON grammar).  *is_int: no fraction, no exponent. */
static int vp__number(vp_reader *r, int *is_int)
{
    size_t p = r->pos;
    const char *s = r->line;
#define VP__DIGIT(k) ((k) < r->len && s[k] >= '0' && s[k] <= '9')
    *is_int = 1;
    if (p < r->len && s[p] == '-')
        p++;
    if (!VP__DIGIT(p))
        return vp__no_value(r);
    if (s[p++] != '0')
        while (VP__DIGIT(p))
            p++;
    if (p < r->len && s[p] == '.') {
        *is_int = 0;
        if (!VP__DIGIT(p + 1)) {
            r->pos = p;
            return vp__syntax(r, "a digit must follow the decimal point");
        }
        for (p++; VP__DIGIT(p); p++)
            ;
    }
    if (p < r->len && (s[p] == 'e' || s[p] == 'E')) {
        *is_int = 0;
        p++;
        if (p < r->len && (s[p] == '+' || s[p] == '-'))
            p++;
        if (!VP__DIGIT(p)) {
            r->pos = p;
            return vp__syntax(r, "a digit must follow the exponent");
        }
        while (VP__DIGIT(p))
            p++;
    }
#undef VP__DIGIT
    r->pos = p;
    return 0;
}

/* An integer at pos into *v (min <= *v <= max).  Fails with a message
 * naming `what` for a fraction, an exponent or a value out of range. */
static int vp__integer(vp_reader *r, long long min, long long max, long long *v, const char *what)
{
    size_t start = r->pos, p;
    unsigned long long mag = 0, lim;
    int is_int, neg = r->line[start] == '-', over = 0;
    char clip[64];
    if (vp__number(r, &is_int))
        return -1;
    if (!is_int)
        return vp__fail(r, "%s must be an integer, not %s", what,
                        vp__clip(r, start, r->pos, clip, sizeof clip));
    lim = !neg ? (unsigned long long)max
               : min >= 0 ? 0 /* only -0 */
                          : (unsigned long long)(-(min + 1)) + 1;
    for (p = start + (size_t)neg; p < r->pos && !over; p++) {
        unsigned dg = (unsigned)(r->line[p] - '0');
        if (mag > lim / 10 || (mag == lim / 10 && dg > lim % 10))
            over = 1;
        else
            mag = mag * 10 + dg;
    }
    if (over)
        return vp__fail(r, "%s %s is out of range %lld..%lld", what,
                        vp__clip(r, start, r->pos, clip, sizeof clip), min, max);
    *v = neg ? (mag ? -(long long)(mag - 1) - 1 : 0) : (long long)mag;
    return 0;
}

static int vp__literal(vp_reader *r)
{
    static const char *const words[] = {"true", "false", "null"};
    size_t i;
    for (i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (r->len - r->pos >= n && !memcmp(r->line + r->pos, words[i], n)) {
            r->pos += n;
            return 0;
        }
    }
    return vp__no_value(r);
}

/* Check any JSON value at pos and step over it, without recursion.  `depth`:
 * the arrays/objects already open around it. */
static int vp__skip(vp_reader *r, int depth)
{
    char open[VP_MAX_DEPTH];
    int top = 0, c, is_int;
    for (;;) {
        vp__ws(r);
        c = vp__peek(r);
        if (c == '{' || c == '[') {
            if (depth + top >= VP_MAX_DEPTH)
                return vp__fail(r, "nested deeper than %d arrays/objects (byte %lu)",
                                VP_MAX_DEPTH, (unsigned long)r->pos + 1);
            open[top++] = (char)c;
            r->pos++;
            vp__ws(r);
            if (vp__peek(r) == (c == '{' ? '}' : ']')) {
                r->pos++;
                top--;
            } else {
                if (c == '{' && (vp__string(r, NULL, NULL) || vp__expect(r, ':', "expected ':'")))
                    return -1;
                continue;
            }
        } else if (c == '"') {
            if (vp__string(r, NULL, NULL))
                return -1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (vp__number(r, &is_int))
                return -1;
        } else if (vp__literal(r))
            return -1;
        /* after a value: close what is complete, or go on to the next item */
        for (;;) {
            if (top == 0)
                return 0;
            vp__ws(r);
            c = vp__peek(r);
            if (c == ',') {
                r->pos++;
                if (open[top - 1] == '{') {
                    vp__ws(r);
                    if (vp__string(r, NULL, NULL) || vp__expect(r, ':', "expected ':'"))
                        return -1;
                }
                break;
            }
            if (c != (open[top - 1] == '{' ? '}' : ']'))
                return vp__syntax(r, open[top - 1] == '{' ? "expected ',' or '}'"
                                                          : "expected ',' or ']'");
            r->pos++;
            top--;
        }
    }
}

/* ---- the request's fields --------------------------------------------- */

enum { VP__DST, VP__SRC, VP__TEMP };

/* A string value decoded into *out; `what` names it in messages.  An
 * embedded \u0000 is refused: C would silently cut the string there. */
static int vp__text(vp_reader *r, const char **out, const char *what)
{
    char *s;
    size_t n;
    if (vp__peek(r) != '"')
        return vp__fail(r, "%s must be a string", what);
    if (vp__string(r, &s, &n))
        return -1;
    if (strlen(s) != n)
        return vp__fail(r, "%s must not contain \\u0000", what);
    *out = s;
    return 0;
}

static int vp__name(vp_reader *r, const char **out, const char *what)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s: a location name", what);
    if (vp__text(r, out, buf))
        return -1;
    return **out ? 0 : vp__fail(r, "%s: a location name must not be empty", what);
}

static int vp__loc(vp_reader *r, vp_loc *l, int role, const char *what)
{
    int c = vp__peek(r);
    char buf[128];
    memset(l, 0, sizeof *l);
    if (c == '-' || (c >= '0' && c <= '9')) {
        l->kind = VP_REG;
        snprintf(buf, sizeof buf, "%s: register number", what);
        return vp__integer(r, 0, VP__MAX_REGISTER, &l->num, buf);
    }
    if (c == '"') {
        l->kind = VP_NAME;
        return vp__name(r, &l->name, what);
    }
    if (c == '[') {
        const char **names;
        r->pos++;
        r->names_len = 0;
        l->kind = VP_LIST;
        for (;;) {
            vp__ws(r);
            if (vp__peek(r) != '"')
                return vp__fail(r, "%s: a multi-register location is a non-empty list of names", what);
            if (vp__grow(&r->names, &r->names_cap, r->names_len + 1, sizeof *r->names))
                return vp__fail(r, "out of memory");
            if (vp__name(r, &r->names[r->names_len++], what))
                return -1;
            vp__ws(r);
            if (vp__peek(r) == ']')
                break;
            if (vp__expect(r, ',', "expected ',' or ']'"))
                return -1;
        }
        r->pos++;
        if (!(names = (const char **)vp__alloc(r, r->names_len * sizeof *names)))
            return vp__fail(r, "out of memory");
        memcpy(names, r->names, r->names_len * sizeof *names);
        l->names = names;
        l->count = r->names_len;
        return 0;
    }
    if (c == '{' && role == VP__SRC) {
        char *key;
        size_t n;
        l->kind = VP_IMM;
        r->pos++;
        vp__ws(r);
        if (vp__peek(r) != '"' || vp__string(r, &key, &n) || n != 3 || strcmp(key, "imm") ||
            vp__expect(r, ':', "expected ':'"))
            return vp__fail(r, "%s: an immediate is {\"imm\": k}, k an integer", what);
        vp__ws(r);
        snprintf(buf, sizeof buf, "%s: immediate", what);
        if (vp__peek(r) != '-' && (vp__peek(r) < '0' || vp__peek(r) > '9'))
            return vp__fail(r, "%s must be an integer", buf);
        if (vp__integer(r, -9223372036854775807LL - 1, 9223372036854775807LL, &l->num, buf))
            return -1;
        vp__ws(r);
        if (vp__peek(r) != '}')
            return vp__fail(r, "%s: an immediate is {\"imm\": k} with no other field", what);
        r->pos++;
        return 0;
    }
    if (c == '{')
        return vp__fail(r, "%s: an immediate {\"imm\": k} may only be a move's source", what);
    return vp__fail(r, "%s: a location is a register number, a name, or a list of names", what);
}

/* [item, ...] where each item is parsed by `item` (a pair of "moves" or a
 * location of "temps") into slot n of a grown array. */
static int vp__list(vp_reader *r, const char *field, const char *items,
                    int (*item)(vp_reader *, size_t))
{
    size_t n;
    if (vp__peek(r) != '[')
        return vp__fail(r, "\"%s\" must be a list of %s", field, items);
    r->pos++;
    vp__ws(r);
    if (vp__peek(r) == ']') {
        r->pos++;
        return 0;
    }
    for (n = 0;; n++) {
        vp__ws(r);
        if (item(r, n))
            return -1;
        vp__ws(r);
        if (vp__peek(r) == ']')
            break;
        if (vp__expect(r, ',', "expected ',' or ']'"))
            return -1;
    }
    r->pos++;
    return 0;
}

static int vp__move(vp_reader *r, size_t n)
{
    vp_move *m;
    char what[64];
    if (vp__grow(&r->moves, &r->moves_cap, n + 1, sizeof *r->moves))
        return vp__fail(r, "out of memory");
    r->req.moves = m = r->moves;
    m += n;
    if (vp__peek(r) != '[')
        return vp__fail(r, "\"moves\"[%lu] must be a [dst, src] pair", (unsigned long)n);
    r->pos++;
    vp__ws(r);
    snprintf(what, sizeof what, "\"moves\"[%lu] destination", (unsigned long)n);
    if (vp__loc(r, &m->dst, VP__DST, what))
        return -1;
    vp__ws(r);
    if (vp__peek(r) != ',')
        return vp__fail(r, "\"moves\"[%lu] must be a [dst, src] pair", (unsigned long)n);
    r->pos++;
    vp__ws(r);
    snprintf(what, sizeof what, "\"moves\"[%lu] source", (unsigned long)n);
    if (vp__loc(r, &m->src, VP__SRC, what))
        return -1;
    vp__ws(r);
    if (vp__peek(r) != ']')
        return vp__fail(r, "\"moves\"[%lu] must be a [dst, src] pair", (unsigned long)n);
    r->pos++;
    r->req.nmoves = n + 1;
    return 0;
}

static int vp__temp(vp_reader *r, size_t n)
{
    char what[64];
    if (vp__grow(&r->temps, &r->temps_cap, n + 1, sizeof *r->temps))
        return vp__fail(r, "out of memory");
    r->req.temps = r->temps;
    snprintf(what, sizeof what, "\"temps\"[%lu]", (unsigned long)n);
    if (vp__loc(r, &r->temps[n], VP__TEMP, what))
        return -1;
    r->req.ntemps = n + 1;
    return 0;
}

/* The raw text line[from..pos), NUL-terminated. */
static const char *vp__raw(vp_reader *r, size_t from)
{
    char *s = (char *)vp__alloc(r, r->pos - from + 1);
    if (s) {
        memcpy(s, r->line + from, r->pos - from);
        s[r->pos - from] = '\0';
    }
    return s;
}

static int vp__null(vp_reader *r)
{
    if (r->len - r->pos >= 4 && !memcmp(r->line + r->pos, "null", 4)) {
        r->pos += 4;
        return 1;
    }
    return 0;
}

enum { VP__MOVES, VP__MODEL, VP__TEMPS, VP__REGISTERS, VP__PRESERVE, VP__MACHINE, VP__ID, VP__NFIELDS };
static const char *const vp__fields[VP__NFIELDS] = {"moves", "model", "temps", "registers",
                                                    "preserve", "machine", "id"};

/* One known field's value at pos; -1 with r->msg on any failure. */
static int vp__field(vp_reader *r, int f)
{
    size_t start = r->pos;
    long long v;
    int c = vp__peek(r);
    switch (f) {
    case VP__MOVES:
        return vp__list(r, "moves", "[dst, src] pairs", vp__move);
    case VP__TEMPS:
        return vp__list(r, "temps", "locations", vp__temp);
    case VP__MODEL:
        if (c != '"')
            return vp__fail(r, "\"model\" must be a string: temp, swap, permi or spill");
        return vp__text(r, &r->req.model, "\"model\"");
    case VP__PRESERVE:
        if (c != '"')
            return vp__fail(r, "\"preserve\" must be a string: \"all\" or \"loops\"");
        return vp__text(r, &r->req.preserve, "\"preserve\"");
    case VP__REGISTERS:
        if (vp__null(r))
            return 0;
        if (c != '-' && (c < '0' || c > '9'))
            return vp__fail(r, "\"registers\" must be an integer n >= 0 (the registers r0..r{n-1})");
        if (vp__integer(r, 0, VP__MAX_REGISTER, &v, "\"registers\""))
            return -1;
        r->req.registers = (long)v;
        return 0;
    case VP__MACHINE:
        if (vp__null(r))
            return 0;
        if (c == '"')
            return vp__text(r, &r->req.machine, "\"machine\"");
        if (c != '{')
            return vp__fail(r, "\"machine\" must be a preset name (a string) or an object");
        if (vp__skip(r, 1))
            return -1;
        r->req.machine_json = vp__raw(r, start);
        return r->req.machine_json ? 0 : vp__fail(r, "out of memory");
    default:
        if (vp__skip(r, 1))
            return -1;
        r->req.id = vp__raw(r, start);
        return r->req.id ? 0 : vp__fail(r, "out of memory");
    }
}

/* The line was JSON but is not a valid request: keep the first such
 * reason (in r->msg now) for vp_error; the "id" is still echoed. */
static void vp__semantic(vp_reader *r)
{
    if (!r->sem)
        memcpy(r->err, r->msg, sizeof r->err);
    r->sem = 1;
}

/* 0: a request; -1: not JSON, or not an object (r->msg says why);
 * -2: JSON but not a valid request (r->err says why). */
static int vp__parse(vp_reader *r)
{
    int f;
    r->pos = 0;
    vp__ws(r);
    if (vp__peek(r) != '{') {
        if (vp__skip(r, 0))
            return -1;
        vp__ws(r);
        if (r->pos != r->len)
            return vp__syntax(r, "text after the JSON value");
        return vp__fail(r, "a request is a JSON object {\"moves\": ..., \"model\": ...}");
    }
    r->pos++;
    vp__ws(r);
    if (vp__peek(r) == '}')
        r->pos++;
    else
        for (;;) {
            char *key;
            size_t n, start;
            vp__ws(r);
            if (vp__peek(r) != '"')
                return vp__syntax(r, "expected a field name in double quotes");
            if (vp__string(r, &key, &n) || vp__expect(r, ':', "expected ':'"))
                return -1;
            vp__ws(r);
            start = r->pos;
            for (f = 0; f < VP__NFIELDS; f++)
                if (strlen(vp__fields[f]) == n && !strcmp(key, vp__fields[f]))
                    break;
            if (f == VP__NFIELDS) { /* unknown: must be JSON, is skipped */
                if (vp__skip(r, 1))
                    return -1;
            } else if (r->seen[f]++) {
                if (vp__skip(r, 1))
                    return -1;
                vp__fail(r, "field \"%s\" appears twice", vp__fields[f]);
                vp__semantic(r);
            } else if (vp__field(r, f)) {
                /* wrong value: step over it again to tell bad JSON (which
                 * wins) from a bad request */
                char why[sizeof r->msg];
                memcpy(why, r->msg, sizeof why);
                r->pos = start;
                if (vp__skip(r, 1))
                    return -1;
                memcpy(r->msg, why, sizeof why);
                vp__semantic(r);
            }
            vp__ws(r);
            if (vp__peek(r) == '}') {
                r->pos++;
                break;
            }
            if (vp__peek(r) != ',')
                return vp__syntax(r, "expected ',' or '}'");
            r->pos++;
        }
    vp__ws(r);
    if (r->pos != r->len)
        return vp__syntax(r, "text after the request object");
    if (r->sem)
        return -2;
    if (!r->seen[VP__MOVES]) {
        vp__fail(r, "missing \"moves\": a list of [dst, src] pairs");
        vp__semantic(r);
        return -2;
    }
    if (!r->req.model && !r->req.machine && !r->req.machine_json) {
        vp__fail(r, "missing \"model\": temp, swap, permi or spill (or a \"machine\")");
        vp__semantic(r);
        return -2;
    }
    return 0;
}

/* The next line into r->line (without '\n'): 1, or 0 at end of input. */
static int vp__getline(vp_reader *r)
{
    int c;
    r->len = 0;
    r->oom = 0;
    while ((c = getc(r->in)) != EOF && c != '\n') {
        if (r->oom)
            continue; /* drop the rest of a line we cannot hold */
        if (vp__grow(&r->line, &r->cap, r->len + 1, 1)) {
            r->oom = 1;
            continue;
        }
        r->line[r->len++] = (char)c;
    }
    return c != EOF || r->len > 0 || r->oom;
}

int vp_read(vp_reader *r, const vp_request **req)
{
    static const vp_request empty = {NULL, "all", -1, NULL, 0, NULL, 0, NULL, NULL, NULL};
    size_t i;
    int rc;
    *req = NULL;
    do { /* a blank line gets no answer */
        if (!vp__getline(r))
            return 0;
        r->lineno++;
        for (i = 0; i < r->len && (r->line[i] == ' ' || r->line[i] == '\t' || r->line[i] == '\r'); i++)
            ;
    } while (i == r->len && !r->oom);
    vp__arena_reset(r, 0);
    r->req = empty;
    r->sem = 0;
    memset(r->seen, 0, sizeof r->seen);
    if (r->oom) {
        vp__fail(r, "out of memory reading this line");
        rc = -1;
    } else
        rc = vp__parse(r);
    if (rc == 0) {
        *req = &r->req;
        return 1;
    }
    if (rc == -1) { /* not a JSON object: no "id" to echo */
        memcpy(r->err, r->msg, sizeof r->err);
        r->req.id = NULL;
    }
    return -1;
}

/* ---- locations ---------------------------------------------------------- */

/* "r0", "r17": the register name of a number (no leading zeros). */
static int vp__regname(const char *s, long long *n)
{
    long long v = 0;
    if (s[0] != 'r' || s[1] < '0' || s[1] > '9' || (s[1] == '0' && s[2]))
        return 0;
    for (s++; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) > VP__MAX_REGISTER)
            return 0;
    }
    *n = v;
    return 1;
}

int vp_loc_equal(const vp_loc *a, const vp_loc *b)
{
    long long na = a->num, nb = b->num;
    int ra = a->kind == VP_REG || (a->kind == VP_NAME && vp__regname(a->name, &na));
    int rb = b->kind == VP_REG || (b->kind == VP_NAME && vp__regname(b->name, &nb));
    size_t i;
    if (ra || rb)
        return ra && rb && na == nb;
    if (a->kind != b->kind)
        return 0;
    if (a->kind == VP_IMM)
        return a->num == b->num;
    if (a->kind == VP_NAME)
        return !strcmp(a->name, b->name);
    if (a->count != b->count)
        return 0;
    for (i = 0; i < a->count; i++)
        if (strcmp(a->names[i], b->names[i]))
            return 0;
    return 1;
}

/* ---- answers ------------------------------------------------------------ */

static void vp__put(vp_reader *r, const char *s, size_t n)
{
    if (r->ans_oom || vp__grow(&r->ans, &r->ans_cap, r->ans_len + n + 1, 1)) {
        r->ans_oom = 1;
        return;
    }
    memcpy(r->ans + r->ans_len, s, n);
    r->ans_len += n;
}

static void vp__puts(vp_reader *r, const char *s) { vp__put(r, s, strlen(s)); }

/* A JSON string; invalid UTF-8 becomes U+FFFD so the line stays valid JSON. */
static void vp__put_string(vp_reader *r, const char *s)
{
    size_t n = strlen(s), i = 0, k;
    char esc[8];
    vp__put(r, "\"", 1);
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            vp__put(r, esc, 2);
            k = 1;
        } else if (c < 0x20) {
            const char *named = strchr("\b\f\n\r\t", c);
            if (named)
                snprintf(esc, sizeof esc, "\\%c", "bfnrt"[named - "\b\f\n\r\t"]);
            else
                snprintf(esc, sizeof esc, "\\u%04x", c);
            vp__puts(r, esc);
            k = 1;
        } else if ((k = vp__utf8((const unsigned char *)s + i, n - i)) != 0)
            vp__put(r, s + i, k);
        else {
            vp__puts(r, "\\ufffd");
            k = 1;
        }
        i += k;
    }
    vp__put(r, "\"", 1);
}

static void vp__put_loc(vp_reader *r, const vp_loc *l)
{
    char num[32];
    size_t i;
    switch (l->kind) {
    case VP_REG:
        snprintf(num, sizeof num, "%lld", l->num);
        vp__puts(r, num);
        break;
    case VP_IMM:
        snprintf(num, sizeof num, "{\"imm\": %lld}", l->num);
        vp__puts(r, num);
        break;
    case VP_NAME:
        vp__put_string(r, l->name);
        break;
    case VP_LIST:
        vp__put(r, "[", 1);
        for (i = 0; i < l->count; i++) {
            if (i)
                vp__put(r, ", ", 2);
            vp__put_string(r, l->names[i]);
        }
        vp__put(r, "]", 1);
        break;
    }
}

static void vp__head(vp_reader *r)
{
    r->ans_len = 0;
    r->ans_oom = 0;
    r->nops = 0;
    vp__put(r, "{", 1);
    if (r->req.id) {
        vp__puts(r, "\"id\": ");
        vp__puts(r, r->req.id);
        vp__put(r, ", ", 2);
    }
}

static int vp__flush(vp_reader *r)
{
    if (r->ans_oom) {
        static const char oom[] = "{\"error\": \"out of memory while writing the answer\"}\n";
        fputs(oom, r->out);
    } else
        fwrite(r->ans, 1, r->ans_len, r->out);
    return fflush(r->out) || ferror(r->out) ? -1 : 0;
}

void vp_begin(vp_reader *r)
{
    vp__head(r);
    vp__puts(r, "\"sequence\": [");
}

static void vp__op(vp_reader *r, const char *name, const vp_loc *a, const vp_loc *b)
{
    vp__puts(r, r->nops++ ? ", [\"" : "[\"");
    vp__puts(r, name);
    vp__put(r, "\", ", 3);
    vp__put_loc(r, a);
    vp__put(r, ", ", 2);
    vp__put_loc(r, b);
    vp__put(r, "]", 1);
}

void vp_mov(vp_reader *r, const vp_loc *dst, const vp_loc *src) { vp__op(r, "mov", dst, src); }
void vp_swap(vp_reader *r, const vp_loc *a, const vp_loc *b) { vp__op(r, "swap", a, b); }
void vp_load(vp_reader *r, const vp_loc *reg, const vp_loc *slot) { vp__op(r, "load", reg, slot); }
void vp_store(vp_reader *r, const vp_loc *reg, const vp_loc *slot) { vp__op(r, "store", reg, slot); }

void vp_perm(vp_reader *r, const vp_move *pairs, size_t n)
{
    size_t i;
    vp__puts(r, r->nops++ ? ", [\"perm\", [" : "[\"perm\", [");
    for (i = 0; i < n; i++) {
        vp__puts(r, i ? ", [" : "[");
        vp__put_loc(r, &pairs[i].dst);
        vp__put(r, ", ", 2);
        vp__put_loc(r, &pairs[i].src);
        vp__put(r, "]", 1);
    }
    vp__puts(r, "]]");
}

int vp_end(vp_reader *r)
{
    vp__puts(r, "]}\n");
    return vp__flush(r);
}

static int vp__answer(vp_reader *r, const char *key, const char *why)
{
    vp__head(r);
    vp__puts(r, key);
    vp__put_string(r, why ? why : "");
    vp__puts(r, "}\n");
    return vp__flush(r);
}

int vp_answer_unsupported(vp_reader *r, const char *why) { return vp__answer(r, "\"unsupported\": ", why); }
int vp_answer_error(vp_reader *r, const char *why) { return vp__answer(r, "\"error\": ", why); }

#endif /* VERIFIED_PROTOCOL_IMPLEMENTATION */

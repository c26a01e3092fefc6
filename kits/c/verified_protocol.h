/* verified_protocol.h: the client side of verified's JSON-lines protocol
 * (docs/protocol.md) in one C99 header, so that an adapter from a compiler's
 * parallel-move resolver to `verified conform` is a page of code.  Every
 * message has a JSON Schema (draft 2020-12; `verified schema NAME` prints
 * one, docs/schemas.md lists them): validate what you send and receive with
 * your own tools.
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
 *   "machine"   a preset name (string), or an object: parsed into a
 *               vp_machine (machine_obj) and kept as raw JSON text
 *               (machine_json); see "the machine" below
 *   "id"        any JSON value, kept as raw text and echoed first in answers
 *   anything else (e.g. "sequence") is checked to be valid JSON and skipped.
 * A location is a register number (3 = r3, 0..2147483647), a name ("rax",
 * "m0", "r3"), a non-empty list of names (["a0", "a1"]), and as a move
 * source only an immediate {"imm": k}, k a 64-bit signed integer.  A move
 * may carry a third element, its value's type: [dst, src, "f64"].
 *
 * The machine object (docs/machines.md) is read into structs: classes,
 * aliases, stack groups, swaps, immediates, costs, and the round-3 fields
 * (unit_bits, types, immediate_bits, pair_moves, reserved, scratch), each
 * optional; every register and slot becomes a vp_place with its units.
 * Fields this reader does not know are skipped, as in a request.  A field
 * of the wrong shape, a name declared twice, an alias that is not a
 * register or a slot (a slot's parts slots: a frame) or contains itself,
 * parts whose widths do not add up, a type,
 * reserved or scratch name the machine lacks, more than 65536 units: the
 * line is not a valid request, the message starts "machine": and names it.
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
    const char *type; /* a typed move [dst, src, TYPE]: the type's name; NULL untyped */
} vp_move;

/* ---- the machine a request carries (docs/machines.md) -------------------
 * conform and vectors send the machine as an object in every request; the
 * reader parses it into these structs, so an adapter writes no JSON code.
 * Lists are (v, n) pairs; every pointer lives as long as the request. */

typedef struct vp_names {
    const char *const *v;
    size_t n;
} vp_names;

typedef struct vp_class {
    const char *name;
    vp_names registers;
    int width;         /* units of each register */
    vp_names swap;     /* this class's swaps ("reg-reg", "reg-mem"): its own
                          "swap" when given, else the machine's */
    int immediate;     /* may its registers take an immediate (default 1) */
} vp_class;

typedef struct vp_group { /* a stack slot group */
    vp_names slots;
    int width;
    int immediate;     /* may an immediate be stored to these slots (default 1) */
} vp_group;

typedef struct vp_alias { /* a register that IS its parts' concatenation */
    const char *name;
    vp_names parts;
} vp_alias;

typedef struct vp_type { /* round 3: "types" */
    const char *name;
    int width;         /* units */
    vp_names classes;  /* the classes whose registers may hold it */
    int stack;         /* may it live in a slot at least `width` wide (default 1) */
} vp_type;

typedef struct vp_pair_move { /* round 3: "pair_moves" */
    const char *pair;  /* the class of the listed registers */
    const char *with;  /* a class, or "mem" */
} vp_pair_move;

enum vp_place_kind { VP_REGISTER, VP_SLOT };

/* Every register and slot, with its units: a unit is the smallest piece of
 * state, numbered 0..nunits-1 over the machine; an aliased register's units
 * are its parts' (d0 = s0:s1 has the units of s0 and s1), so two places
 * overlap exactly when they share a unit number. */
typedef struct vp_place {
    const char *name;
    enum vp_place_kind kind;
    int cls;           /* index into classes (a register), else -1 */
    int group;         /* index into stack (a slot), else -1 */
    int width;
    const int *units;
    size_t nunits;
} vp_place;

struct vp__named;

typedef struct vp_machine {
    const char *name;          /* "machine" when absent */
    const char *source;        /* "" when absent */
    const vp_class *classes;
    size_t nclasses;
    const vp_alias *aliases;
    size_t naliases;
    const vp_group *stack;
    size_t nstack;
    vp_names swap;             /* default none */
    int mem_to_mem, cross_class;       /* default 0 */
    vp_names immediate_to;     /* default ["reg"] */
    long long cost_mov, cost_load, cost_store, cost_swap, cost_imm; /* default 1 */
    /* round 3, each absent-tolerant: */
    long long unit_bits;       /* -1 when absent */
    const vp_type *types;
    size_t ntypes;
    long long immediate_bits_reg, immediate_bits_mem; /* -1 when absent */
    const vp_pair_move *pair_moves;
    size_t npair_moves;
    vp_names reserved, scratch;
    /* derived */
    const vp_place *places;    /* registers (class order), then slots */
    size_t nplaces;
    const char *const *unit_names; /* "rax", "xmm0.1", ... */
    size_t nunits;
    const struct vp__named *by_name_; /* private: places sorted by name */
} vp_machine;

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
    const vp_machine *machine_obj; /* that object parsed, or NULL */
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

/* Machine lookups: NULL / 0 when absent (binary search: names are sorted
 * once per request). */
const vp_place *vp_place_of(const vp_machine *m, const char *name);
const vp_type *vp_type_of(const vp_machine *m, const char *name);
int vp_names_has(vp_names l, const char *s);
/* Do two locations (names or lists of names) share a unit?  A location not
 * on the machine (an immediate, a register number) shares none. */
int vp_overlap(const vp_machine *m, const vp_loc *a, const vp_loc *b);

/* The answer to the last request read: vp_begin, any number of operations,
 * vp_end, which writes {"id": ..., "sequence": [...]} as one line and
 * flushes.  Or, instead of vp_end (even after vp_begin), one of the
 * vp_answer_* lines.  Each returns 0, or -1 when `out` fails. */
void vp_begin(vp_reader *r);
void vp_mov(vp_reader *r, const vp_loc *dst, const vp_loc *src);
void vp_swap(vp_reader *r, const vp_loc *a, const vp_loc *b);
/* ["mov", dst, src, TYPE] / ["swap", a, b, TYPE]; type NULL: untyped */
void vp_mov_typed(vp_reader *r, const vp_loc *dst, const vp_loc *src, const char *type);
void vp_swap_typed(vp_reader *r, const vp_loc *a, const vp_loc *b, const char *type);
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
        return vp__fail(r, "\"moves\"[%lu] must be a [dst, src] pair or [dst, src, type]", (unsigned long)n);
    r->pos++;
    vp__ws(r);
    snprintf(what, sizeof what, "\"moves\"[%lu] destination", (unsigned long)n);
    if (vp__loc(r, &m->dst, VP__DST, what))
        return -1;
    vp__ws(r);
    if (vp__peek(r) != ',')
        return vp__fail(r, "\"moves\"[%lu] must be a [dst, src] pair or [dst, src, type]", (unsigned long)n);
    r->pos++;
    vp__ws(r);
    snprintf(what, sizeof what, "\"moves\"[%lu] source", (unsigned long)n);
    if (vp__loc(r, &m->src, VP__SRC, what))
        return -1;
    vp__ws(r);
    m->type = NULL;
    if (vp__peek(r) == ',') { /* a typed move [dst, src, TYPE] */
        r->pos++;
        vp__ws(r);
        snprintf(what, sizeof what, "\"moves\"[%lu] type", (unsigned long)n);
        if (vp__peek(r) != '"')
            return vp__fail(r, "%s must be a type name (a string)", what);
        if (vp__text(r, &m->type, what))
            return -1;
        if (!*m->type)
            return vp__fail(r, "%s must not be empty", what);
        vp__ws(r);
    }
    if (vp__peek(r) != ']')
        return vp__fail(r, "\"moves\"[%lu] must be a [dst, src] pair or [dst, src, type]", (unsigned long)n);
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

/* ---- the machine object ------------------------------------------------ */

/* The machine value is read into a small tree first (without recursion:
 * an explicit stack, VP_MAX_DEPTH deep at most), then walked field by
 * field; only known fields are walked, to a fixed depth. */
typedef struct vp__json {
    int type;                 /* '{', '[', '"', '0' (number), 't', 'f', 'n' */
    const char *str;          /* a string, decoded */
    size_t len;               /* its length (an embedded \u0000 makes strlen shorter) */
    size_t at;                /* where the value starts in the line */
    size_t n;                 /* children of an object or array */
    struct vp__json **kids;
    const char **keys;        /* an object's keys, decoded */
    size_t *key_len;
} vp__json;

struct vp__frame {
    vp__json *node;
    vp__json **kids;
    const char **keys;
    size_t *key_len;
    size_t n, cap, kcap, lcap;
    const char *key;
    size_t klen;
};

static int vp__frame_close(vp_reader *r, struct vp__frame *f)
{
    vp__json *o = f->node;
    o->n = f->n;
    if (f->n) {
        if (!(o->kids = (vp__json **)vp__alloc(r, f->n * sizeof *o->kids)))
            return -1;
        memcpy(o->kids, f->kids, f->n * sizeof *o->kids);
        if (o->type == '{') {
            if (!(o->keys = (const char **)vp__alloc(r, f->n * sizeof *o->keys)) ||
                !(o->key_len = (size_t *)vp__alloc(r, f->n * sizeof *o->key_len)))
                return -1;
            memcpy(o->keys, f->keys, f->n * sizeof *o->keys);
            memcpy(o->key_len, f->key_len, f->n * sizeof *o->key_len);
        }
    }
    return 0;
}

/* The JSON value at pos (already checked by vp__skip) as a tree; NULL when
 * out of memory. */
static vp__json *vp__tree(vp_reader *r)
{
    struct vp__frame st[VP_MAX_DEPTH];
    int top = -1, i, failed = 0, is_int;
    vp__json *node = NULL;
    memset(st, 0, sizeof st);
    for (;;) {
        int c;
        vp__ws(r);
        c = vp__peek(r);
        if (!(node = (vp__json *)vp__alloc(r, sizeof *node))) {
            failed = 1;
            break;
        }
        memset(node, 0, sizeof *node);
        node->at = r->pos;
        if ((c == '{' || c == '[') && top + 1 < VP_MAX_DEPTH) {
            node->type = c;
            r->pos++;
            vp__ws(r);
            if (vp__peek(r) != (c == '{' ? '}' : ']')) {
                st[++top].node = node;
                if (c == '{') {
                    char *k;
                    if (vp__string(r, &k, &st[top].klen) || vp__expect(r, ':', "expected ':'")) {
                        failed = 1;
                        break;
                    }
                    st[top].key = k;
                }
                continue;
            }
            r->pos++;
        } else if (c == '"') {
            char *s;
            node->type = '"';
            if (vp__string(r, &s, &node->len)) {
                failed = 1;
                break;
            }
            node->str = s;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            node->type = '0';
            if (vp__number(r, &is_int)) {
                failed = 1;
                break;
            }
        } else if (c == 't' || c == 'f' || c == 'n') {
            node->type = c;
            if (vp__literal(r)) {
                failed = 1;
                break;
            }
        } else {
            failed = 1;
            break;
        }
        /* a complete value: add it to the open container, closing what ends */
        for (;;) {
            struct vp__frame *f;
            if (top < 0)
                goto done;
            f = &st[top];
            if (vp__grow(&f->kids, &f->cap, f->n + 1, sizeof *f->kids) ||
                (f->node->type == '{' &&
                 (vp__grow(&f->keys, &f->kcap, f->n + 1, sizeof *f->keys) ||
                  vp__grow(&f->key_len, &f->lcap, f->n + 1, sizeof *f->key_len)))) {
                failed = 1;
                goto done;
            }
            if (f->node->type == '{') {
                f->keys[f->n] = f->key;
                f->key_len[f->n] = f->klen;
            }
            f->kids[f->n++] = node;
            vp__ws(r);
            if (vp__peek(r) == ',') {
                r->pos++;
                if (f->node->type == '{') {
                    char *k;
                    vp__ws(r);
                    if (vp__string(r, &k, &f->klen) || vp__expect(r, ':', "expected ':'")) {
                        failed = 1;
                        goto done;
                    }
                    f->key = k;
                }
                break;
            }
            r->pos++; /* the closing bracket */
            if (vp__frame_close(r, f)) {
                failed = 1;
                goto done;
            }
            node = f->node;
            free(f->kids);
            free(f->keys);
            free(f->key_len);
            memset(f, 0, sizeof *f);
            top--;
        }
    }
done:
    for (i = 0; i <= top; i++) {
        free(st[i].kids);
        free(st[i].keys);
        free(st[i].key_len);
    }
    return failed ? NULL : node;
}

/* A machine failure: "machine": ... */
static int vp__mfail(vp_reader *r, const char *fmt, ...)
{
    va_list ap;
    char body[400];
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    return vp__fail(r, "\"machine\": %s", body);
}

/* Object o's field `key` (NULL when absent); *dup set when it appears twice. */
static const vp__json *vp__get(const vp__json *o, const char *key, int *dup)
{
    const vp__json *found = NULL;
    size_t i, n = strlen(key);
    for (i = 0; i < o->n; i++)
        if (o->key_len[i] == n && !memcmp(o->keys[i], key, n)) {
            if (found)
                *dup = 1;
            found = o->kids[i];
        }
    return found;
}

/* Field `key` of object o, which must be of type `type` (0: any) when present. */
static int vp__field_of(vp_reader *r, const vp__json *o, const char *key, int type,
                        const char *what, const char *shape, const vp__json **out)
{
    int dup = 0;
    *out = vp__get(o, key, &dup);
    if (dup)
        return vp__mfail(r, "%s\"%s\" appears twice", what, key);
    if (*out && type && (*out)->type != type)
        return vp__mfail(r, "%s\"%s\" must be %s", what, key, shape);
    return 0;
}

static int vp__mint(vp_reader *r, const vp__json *v, long long lo, long long hi,
                    long long *out, const char *what, const char *key)
{
    char buf[160];
    snprintf(buf, sizeof buf, "\"machine\": %s\"%s\"", what, key);
    if (v->type != '0')
        return vp__mfail(r, "%s\"%s\" must be a whole number in %lld..%lld", what, key, lo, hi);
    r->pos = v->at;
    if (vp__integer(r, lo, hi, out, buf))
        return -1;
    if (*out < lo) { /* vp__integer bounds only the magnitude's side */
        char clip[64];
        return vp__fail(r, "%s %s is out of range %lld..%lld", buf,
                        vp__clip(r, v->at, r->pos, clip, sizeof clip), lo, hi);
    }
    return 0;
}

static int vp__mbool(vp_reader *r, const vp__json *v, int *out, const char *what, const char *key)
{
    if (v->type != 't' && v->type != 'f')
        return vp__mfail(r, "%s\"%s\" must be true or false", what, key);
    *out = v->type == 't';
    return 0;
}

/* A non-empty string without \u0000. */
static int vp__mname(vp_reader *r, const vp__json *v, const char **out, const char *what)
{
    if (v->type != '"' || !v->len || strlen(v->str) != v->len)
        return vp__mfail(r, "%s must be a non-empty string without \\u0000", what);
    *out = v->str;
    return 0;
}

static int vp__mnames(vp_reader *r, const vp__json *v, vp_names *out, int nonempty,
                      const char *what)
{
    const char **names;
    size_t i;
    if (v->type != '[' || (nonempty && !v->n))
        return vp__mfail(r, "%s must be a %slist of names", what, nonempty ? "non-empty " : "");
    if (!(names = (const char **)vp__alloc(r, (v->n ? v->n : 1) * sizeof *names)))
        return vp__fail(r, "out of memory");
    for (i = 0; i < v->n; i++) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s[%lu]", what, (unsigned long)i);
        if (vp__mname(r, v->kids[i], &names[i], buf))
            return -1;
    }
    out->v = names;
    out->n = v->n;
    return 0;
}

static int vp__mwidth(vp_reader *r, const vp__json *o, int *out, const char *what)
{
    const vp__json *v;
    long long w = 1;
    if (vp__field_of(r, o, "width", 0, what, "", &v) || (v && vp__mint(r, v, 1, 65536, &w, what, "width")))
        return -1;
    *out = (int)w;
    return 0;
}

static int vp__mflag(vp_reader *r, const vp__json *o, const char *key, int dflt, int *out,
                     const char *what)
{
    const vp__json *v;
    *out = dflt;
    if (vp__field_of(r, o, key, 0, what, "", &v))
        return -1;
    return v ? vp__mbool(r, v, out, what, key) : 0;
}

static int vp__mlist(vp_reader *r, const vp__json *o, const char *key, vp_names *out,
                     const char *what)
{
    const vp__json *v;
    char buf[160];
    if (vp__field_of(r, o, key, 0, what, "", &v))
        return -1;
    if (!v)
        return 0;
    snprintf(buf, sizeof buf, "%s\"%s\"", what, key);
    return vp__mnames(r, v, out, 0, buf);
}

struct vp__mbuild {
    vp_machine m;
    vp_class *classes;
    vp_alias *aliases;
    vp_group *stack;
    vp_type *types;
    vp_pair_move *pairs;
    vp_place *places;
    struct vp__named *order;  /* places sorted by name */
    int *units;               /* every place's units, one after another */
};

static void *vp__calloc_arena(vp_reader *r, size_t n, size_t size)
{
    void *p;
    size_t bytes;
    if (n > ((size_t)-1) / size)
        return NULL;
    bytes = n * size > 0 ? n * size : 1;
    if ((p = vp__alloc(r, bytes)) != NULL)
        memset(p, 0, bytes);
    return p;
}

struct vp__named {
    const char *name;
    size_t index;
};

static int vp__by_name(const void *a, const void *b)
{
    return strcmp(((const struct vp__named *)a)->name, ((const struct vp__named *)b)->name);
}

static long vp__find(const vp_machine *m, const struct vp__named *order, const char *name)
{
    size_t lo = 0, hi = m->nplaces;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(order[mid].name, name);
        if (!c)
            return (long)order[mid].index;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int vp__mclasses(vp_reader *r, struct vp__mbuild *b, const vp__json *v)
{
    size_t i;
    if (v->type != '{')
        return vp__mfail(r, "\"classes\" must be an object of classes");
    if (!(b->classes = (vp_class *)vp__calloc_arena(r, v->n, sizeof *b->classes)))
        return vp__fail(r, "out of memory");
    for (i = 0; i < v->n; i++) {
        vp_class *c = &b->classes[i];
        const vp__json *o = v->kids[i], *f;
        char what[160];
        if (!v->key_len[i] || strlen(v->keys[i]) != v->key_len[i])
            return vp__mfail(r, "a class name must be a non-empty string without \\u0000");
        c->name = v->keys[i];
        snprintf(what, sizeof what, "class '%.60s': ", c->name);
        if (o->type != '{')
            return vp__mfail(r, "class '%.60s' must be an object", c->name);
        if (vp__field_of(r, o, "registers", 0, what, "", &f))
            return -1;
        if (!f)
            return vp__mfail(r, "class '%.60s' needs \"registers\": a list of names", c->name);
        snprintf(what, sizeof what, "class '%.60s': \"registers\"", c->name);
        if (vp__mnames(r, f, &c->registers, 1, what))
            return -1;
        snprintf(what, sizeof what, "class '%.60s': ", c->name);
        c->swap.v = NULL; /* NULL: the machine's swaps (filled in at the end) */
        if (vp__mwidth(r, o, &c->width, what) || vp__mlist(r, o, "swap", &c->swap, what) ||
            vp__mflag(r, o, "immediate", 1, &c->immediate, what))
            return -1;
    }
    b->m.classes = b->classes;
    b->m.nclasses = v->n;
    return 0;
}

static int vp__mgroup(vp_reader *r, const vp__json *g, vp_group *out, const char *what,
                      size_t *total)
{
    const vp__json *slots, *names;
    char w2[160];
    snprintf(w2, sizeof w2, "%s: ", what);
    if (g->type != '{')
        return vp__mfail(r, "%s must be an object", what);
    if (vp__field_of(r, g, "slots", 0, w2, "", &slots) ||
        vp__field_of(r, g, "names", 0, w2, "", &names))
        return -1;
    if (!slots == !names)
        return vp__mfail(r, "%s needs exactly one of \"slots\": N or \"names\": [...]", what);
    if (vp__mwidth(r, g, &out->width, w2) || vp__mflag(r, g, "immediate", 1, &out->immediate, w2))
        return -1;
    if (slots) {
        long long k, i;
        const char **v;
        if (vp__mint(r, slots, 0, 65536, &k, w2, "slots"))
            return -1;
        if (*total + (size_t)k * (size_t)out->width > 65536)
            return vp__mfail(r, "declares more than 65536 units");
        if (!(v = (const char **)vp__calloc_arena(r, (size_t)k, sizeof *v)))
            return vp__fail(r, "out of memory");
        for (i = 0; i < k; i++) {
            char *s = (char *)vp__alloc(r, 24);
            if (!s)
                return vp__fail(r, "out of memory");
            snprintf(s, 24, "s%lld", i);
            v[i] = s;
        }
        out->slots.v = v;
        out->slots.n = (size_t)k;
    } else {
        char w3[160];
        snprintf(w3, sizeof w3, "%s: \"names\"", what);
        if (vp__mnames(r, names, &out->slots, 0, w3))
            return -1;
    }
    if (out->slots.n > 65536 || *total + out->slots.n * (size_t)out->width > 65536)
        return vp__mfail(r, "declares more than 65536 units");
    *total += out->slots.n * (size_t)out->width;
    return 0;
}

static int vp__mstack(vp_reader *r, struct vp__mbuild *b, const vp__json *v, size_t *total)
{
    size_t i, n = v->type == '[' ? v->n : 1;
    if (v->type != '[' && v->type != '{')
        return vp__mfail(r, "\"stack\" must be an object or a list of objects");
    if (!(b->stack = (vp_group *)vp__calloc_arena(r, n, sizeof *b->stack)))
        return vp__fail(r, "out of memory");
    for (i = 0; i < n; i++) {
        char what[64];
        if (v->type == '[')
            snprintf(what, sizeof what, "stack group #%lu", (unsigned long)i);
        else
            snprintf(what, sizeof what, "\"stack\"");
        if (vp__mgroup(r, v->type == '[' ? v->kids[i] : v, &b->stack[i], what, total))
            return -1;
    }
    b->m.stack = b->stack;
    b->m.nstack = n;
    return 0;
}

/* An object's key as a name. */
static int vp__mkey(vp_reader *r, const vp__json *v, size_t i, const char *what)
{
    if (!v->key_len[i] || strlen(v->keys[i]) != v->key_len[i])
        return vp__mfail(r, "%s must be a non-empty string without \\u0000", what);
    return 0;
}

static int vp__maliases(vp_reader *r, struct vp__mbuild *b, const vp__json *v)
{
    size_t i;
    if (v->type != '{')
        return vp__mfail(r, "\"aliases\" must be an object {\"d0\": [\"s0\", \"s1\"], ...}");
    if (!(b->aliases = (vp_alias *)vp__calloc_arena(r, v->n, sizeof *b->aliases)))
        return vp__fail(r, "out of memory");
    for (i = 0; i < v->n; i++) {
        char what[160];
        if (vp__mkey(r, v, i, "an alias name"))
            return -1;
        b->aliases[i].name = v->keys[i];
        snprintf(what, sizeof what, "alias '%.60s'", v->keys[i]);
        if (vp__mnames(r, v->kids[i], &b->aliases[i].parts, 1, what))
            return -1;
    }
    b->m.aliases = b->aliases;
    b->m.naliases = v->n;
    return 0;
}

static int vp__mtypes(vp_reader *r, struct vp__mbuild *b, const vp__json *v)
{
    size_t i, j, k;
    if (v->type != '{')
        return vp__mfail(r, "\"types\" must be an object {\"f64\": {\"width\": 1, \"classes\": [...]}, ...}");
    if (!(b->types = (vp_type *)vp__calloc_arena(r, v->n, sizeof *b->types)))
        return vp__fail(r, "out of memory");
    for (i = 0; i < v->n; i++) {
        vp_type *t = &b->types[i];
        const vp__json *o = v->kids[i], *f;
        char what[160];
        if (vp__mkey(r, v, i, "a type name"))
            return -1;
        t->name = v->keys[i];
        if (o->type != '{')
            return vp__mfail(r, "type '%.60s' must be an object", t->name);
        snprintf(what, sizeof what, "type '%.60s': ", t->name);
        if (vp__field_of(r, o, "classes", 0, what, "", &f) || vp__mwidth(r, o, &t->width, what) ||
            vp__mflag(r, o, "stack", 1, &t->stack, what))
            return -1;
        if (f) {
            snprintf(what, sizeof what, "type '%.60s': \"classes\"", t->name);
            if (vp__mnames(r, f, &t->classes, 0, what))
                return -1;
        }
        for (j = 0; j < t->classes.n; j++) {
            for (k = 0; k < b->m.nclasses && strcmp(b->classes[k].name, t->classes.v[j]); k++)
                ;
            if (k == b->m.nclasses)
                return vp__mfail(r, "type '%.60s': '%.60s' is not a class of this machine",
                                 t->name, t->classes.v[j]);
        }
    }
    b->m.types = b->types;
    b->m.ntypes = v->n;
    return 0;
}

static int vp__mpairs(vp_reader *r, struct vp__mbuild *b, const vp__json *v)
{
    size_t i;
    if (v->type != '[')
        return vp__mfail(r, "\"pair_moves\" must be a list of {\"pair\": CLASS, \"with\": CLASS or \"mem\"}");
    if (!(b->pairs = (vp_pair_move *)vp__calloc_arena(r, v->n, sizeof *b->pairs)))
        return vp__fail(r, "out of memory");
    for (i = 0; i < v->n; i++) {
        const vp__json *o = v->kids[i], *p = NULL, *w = NULL;
        char what[64];
        snprintf(what, sizeof what, "pair move #%lu: ", (unsigned long)i);
        if (o->type != '{')
            return vp__mfail(r, "pair move #%lu must be an object", (unsigned long)i);
        if (vp__field_of(r, o, "pair", 0, what, "", &p) || vp__field_of(r, o, "with", 0, what, "", &w))
            return -1;
        if (!p || !w)
            return vp__mfail(r, "pair move #%lu needs \"pair\" and \"with\"", (unsigned long)i);
        snprintf(what, sizeof what, "pair move #%lu: \"pair\"", (unsigned long)i);
        if (vp__mname(r, p, &b->pairs[i].pair, what))
            return -1;
        snprintf(what, sizeof what, "pair move #%lu: \"with\"", (unsigned long)i);
        if (vp__mname(r, w, &b->pairs[i].with, what))
            return -1;
    }
    b->m.pair_moves = b->pairs;
    b->m.npair_moves = v->n;
    return 0;
}

/* Every register and slot as a place: names unique; units of a plain
 * register or slot its own (x, or x.0..x.{w-1}); an alias's units its
 * parts' in order (depth first with an explicit stack, no recursion);
 * widths adding up, parts disjoint, no alias containing itself. */
static int vp__mplaces(vp_reader *r, struct vp__mbuild *b)
{
    vp_machine *m = &b->m;
    size_t i, j, k, n = 0, units = 0, ui = 0, uo = 0;
    int *state, *aliasof;
    size_t *stk;
    const char **names;
    for (i = 0; i < m->nclasses; i++) {
        n += m->classes[i].registers.n;
        units += m->classes[i].registers.n * (size_t)m->classes[i].width;
        if (n > 65536 || units > 65536)
            return vp__mfail(r, "declares more than 65536 units");
    }
    for (i = 0; i < m->nstack; i++) {
        n += m->stack[i].slots.n;
        units += m->stack[i].slots.n * (size_t)m->stack[i].width;
    }
    if (units > 65536)
        return vp__mfail(r, "declares more than 65536 units");
    if (!(b->places = (vp_place *)vp__calloc_arena(r, n, sizeof *b->places)) ||
        !(b->order = (struct vp__named *)vp__calloc_arena(r, n, sizeof *b->order)) ||
        !(state = (int *)vp__calloc_arena(r, n, sizeof *state)) ||
        !(aliasof = (int *)vp__calloc_arena(r, n, sizeof *aliasof)) ||
        !(stk = (size_t *)vp__calloc_arena(r, n, sizeof *stk)) ||
        !(b->units = (int *)vp__calloc_arena(r, units, sizeof *b->units)) ||
        !(names = (const char **)vp__calloc_arena(r, units, sizeof *names)))
        return vp__fail(r, "out of memory");
    m->places = b->places;
    m->nplaces = n;
    for (i = 0, k = 0; i < m->nclasses; i++)
        for (j = 0; j < m->classes[i].registers.n; j++, k++) {
            b->places[k].name = m->classes[i].registers.v[j];
            b->places[k].kind = VP_REGISTER;
            b->places[k].cls = (int)i;
            b->places[k].group = -1;
            b->places[k].width = m->classes[i].width;
        }
    for (i = 0; i < m->nstack; i++)
        for (j = 0; j < m->stack[i].slots.n; j++, k++) {
            b->places[k].name = m->stack[i].slots.v[j];
            b->places[k].kind = VP_SLOT;
            b->places[k].cls = -1;
            b->places[k].group = (int)i;
            b->places[k].width = m->stack[i].width;
        }
    for (i = 0; i < n; i++) {
        b->order[i].name = b->places[i].name;
        b->order[i].index = i;
        aliasof[i] = -1;
    }
    qsort(b->order, n, sizeof *b->order, vp__by_name);
    for (i = 1; i < n; i++)
        if (!strcmp(b->order[i].name, b->order[i - 1].name))
            return vp__mfail(r, "'%.60s' is declared twice", b->order[i].name);
    for (i = 0; i < m->naliases; i++) {
        long p = vp__find(m, b->order, m->aliases[i].name);
        if (p < 0) /* a register over registers, or a slot over slots (a frame) */
            return vp__mfail(r, "alias '%.60s' is not a register of any class", m->aliases[i].name);
        aliasof[p] = (int)i;
        for (j = 0; j < m->aliases[i].parts.n; j++) {
            long q = vp__find(m, b->order, m->aliases[i].parts.v[j]);
            if (b->places[p].kind == VP_SLOT && (q < 0 || b->places[q].kind != VP_SLOT))
                return vp__mfail(r, "alias '%.60s' is a stack slot, so its parts are slots, "
                                 "but '%.60s' is not one", m->aliases[i].name,
                                 m->aliases[i].parts.v[j]);
            if (b->places[p].kind == VP_REGISTER && (q < 0 || b->places[q].kind != VP_REGISTER))
                return vp__mfail(r, "alias '%.60s': part '%.60s' is not a register of any class",
                                 m->aliases[i].name, m->aliases[i].parts.v[j]);
        }
    }
    for (i = 0; i < n; i++) { /* plain registers and slots: their own units */
        vp_place *pl = &b->places[i];
        int w;
        if (aliasof[i] >= 0)
            continue;
        pl->units = b->units + uo;
        pl->nunits = (size_t)pl->width;
        for (w = 0; w < pl->width; w++) {
            if (pl->width == 1)
                names[ui] = pl->name;
            else {
                size_t len = strlen(pl->name) + 8;
                char *s = (char *)vp__alloc(r, len);
                if (!s)
                    return vp__fail(r, "out of memory");
                snprintf(s, len, "%s.%d", pl->name, w);
                names[ui] = s;
            }
            b->units[uo++] = (int)ui++;
        }
        state[i] = 2;
    }
    m->unit_names = names;
    m->nunits = ui;
    for (i = 0; i < n; i++) { /* aliases */
        size_t top = 0;
        if (state[i] == 2)
            continue;
        stk[top++] = i;
        state[i] = 1;
        while (top) {
            size_t a = stk[top - 1], got = 0, x = 0, y;
            const vp_alias *al = &m->aliases[aliasof[a]];
            int pushed = 0, *u;
            for (j = 0; j < al->parts.n && !pushed; j++) {
                size_t q = (size_t)vp__find(m, b->order, al->parts.v[j]);
                if (state[q] == 1)
                    return vp__mfail(r, "alias '%.60s' contains itself", al->name);
                if (state[q] == 0) {
                    stk[top++] = q;
                    state[q] = 1;
                    pushed = 1;
                }
            }
            if (pushed)
                continue;
            for (j = 0; j < al->parts.n; j++)
                got += b->places[vp__find(m, b->order, al->parts.v[j])].nunits;
            if (got != (size_t)b->places[a].width)
                return vp__mfail(r, "alias '%.60s': its parts have width %lu but its %s says %d",
                                 al->name, (unsigned long)got,
                                 b->places[a].kind == VP_SLOT ? "stack group" : "class",
                                 b->places[a].width);
            if (!(u = (int *)vp__alloc(r, got * sizeof *u)))
                return vp__fail(r, "out of memory");
            for (j = 0; j < al->parts.n; j++) {
                const vp_place *pp = &b->places[vp__find(m, b->order, al->parts.v[j])];
                for (y = 0; y < pp->nunits; y++)
                    u[x++] = pp->units[y];
            }
            for (x = 0; x < got; x++)
                for (y = x + 1; y < got; y++)
                    if (u[x] == u[y])
                        return vp__mfail(r, "alias '%.60s': its parts overlap", al->name);
            b->places[a].units = u;
            b->places[a].nunits = got;
            state[a] = 2;
            top--;
        }
    }
    return 0;
}

/* The machine object at pos into r->req.machine_obj. */
static int vp__machine(vp_reader *r)
{
    static const char *const reg_only[] = {"reg"};
    static const char *const cost_keys[] = {"mov", "load", "store", "swap", "imm"};
    struct vp__mbuild *b;
    const vp__json *o, *f, *c;
    size_t total = 0, i;
    long long *cost[5];
    if (!(b = (struct vp__mbuild *)vp__calloc_arena(r, 1, sizeof *b)) || !(o = vp__tree(r)))
        return vp__fail(r, "out of memory");
    b->m.name = "machine";
    b->m.source = "";
    b->m.immediate_to.v = reg_only;
    b->m.immediate_to.n = 1;
    b->m.cost_mov = b->m.cost_load = b->m.cost_store = b->m.cost_swap = b->m.cost_imm = 1;
    b->m.unit_bits = b->m.immediate_bits_reg = b->m.immediate_bits_mem = -1;
    cost[0] = &b->m.cost_mov;
    cost[1] = &b->m.cost_load;
    cost[2] = &b->m.cost_store;
    cost[3] = &b->m.cost_swap;
    cost[4] = &b->m.cost_imm;
    if (vp__field_of(r, o, "name", 0, "", "", &f) || (f && vp__mname(r, f, &b->m.name, "\"name\"")))
        return -1;
    if (vp__field_of(r, o, "source", '"', "", "a string", &f))
        return -1;
    if (f)
        b->m.source = f->str;
    if (vp__field_of(r, o, "classes", 0, "", "", &f))
        return -1;
    if (!f)
        return vp__mfail(r, "missing \"classes\": {\"NAME\": {\"registers\": [...], \"width\": W}, ...}");
    if (vp__mclasses(r, b, f))
        return -1;
    if (vp__field_of(r, o, "stack", 0, "", "", &f) || (f && vp__mstack(r, b, f, &total)))
        return -1;
    if (vp__field_of(r, o, "aliases", 0, "", "", &f) || (f && vp__maliases(r, b, f)))
        return -1;
    if (vp__mlist(r, o, "swap", &b->m.swap, "") ||
        vp__mlist(r, o, "immediate_to", &b->m.immediate_to, "") ||
        vp__mflag(r, o, "mem_to_mem", 0, &b->m.mem_to_mem, "") ||
        vp__mflag(r, o, "cross_class", 0, &b->m.cross_class, ""))
        return -1;
    if (vp__field_of(r, o, "cost", '{', "", "an object", &f))
        return -1;
    for (i = 0; f && i < 5; i++)
        if (vp__field_of(r, f, cost_keys[i], 0, "\"cost\": ", "", &c) ||
            (c && vp__mint(r, c, 0, 65536, cost[i], "\"cost\": ", cost_keys[i])))
            return -1;
    if (vp__field_of(r, o, "unit_bits", 0, "", "", &f) ||
        (f && vp__mint(r, f, 1, 65536, &b->m.unit_bits, "", "unit_bits")))
        return -1;
    if (vp__field_of(r, o, "immediate_bits", '{', "", "an object {\"reg\": BITS, \"mem\": BITS}", &f))
        return -1;
    if (f && (vp__field_of(r, f, "reg", 0, "\"immediate_bits\": ", "", &c) ||
              (c && vp__mint(r, c, 1, 65536, &b->m.immediate_bits_reg, "\"immediate_bits\": ", "reg")) ||
              vp__field_of(r, f, "mem", 0, "\"immediate_bits\": ", "", &c) ||
              (c && vp__mint(r, c, 1, 65536, &b->m.immediate_bits_mem, "\"immediate_bits\": ", "mem"))))
        return -1;
    if (vp__field_of(r, o, "types", 0, "", "", &f) || (f && vp__mtypes(r, b, f)))
        return -1;
    if (vp__field_of(r, o, "pair_moves", 0, "", "", &f) || (f && vp__mpairs(r, b, f)))
        return -1;
    if (vp__mlist(r, o, "reserved", &b->m.reserved, "") ||
        vp__mlist(r, o, "scratch", &b->m.scratch, ""))
        return -1;
    if (vp__mplaces(r, b))
        return -1;
    for (i = 0; i < b->m.nclasses; i++)
        if (!b->classes[i].swap.v)
            b->classes[i].swap = b->m.swap;
    for (i = 0; i < b->m.reserved.n + b->m.scratch.n; i++) {
        int res = i < b->m.reserved.n;
        const char *nm = res ? b->m.reserved.v[i] : b->m.scratch.v[i - b->m.reserved.n];
        if (vp__find(&b->m, b->order, nm) < 0)
            return vp__mfail(r, "\"%s\": '%.60s' is not a register or slot of this machine",
                             res ? "reserved" : "scratch", nm);
    }
    b->m.by_name_ = b->order;
    r->req.machine_obj = &b->m;
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
        if (!r->req.machine_json)
            return vp__fail(r, "out of memory");
        {
            size_t end = r->pos;
            int rc;
            r->pos = start;
            rc = vp__machine(r);
            r->pos = end;
            return rc;
        }
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
    static const vp_request empty = {NULL, "all", -1, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL};
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

/* ---- machine lookups ---------------------------------------------------- */

const vp_place *vp_place_of(const vp_machine *m, const char *name)
{
    long i = m && name ? vp__find(m, m->by_name_, name) : -1;
    return i < 0 ? NULL : &m->places[i];
}

const vp_type *vp_type_of(const vp_machine *m, const char *name)
{
    size_t i;
    for (i = 0; m && name && i < m->ntypes; i++)
        if (!strcmp(m->types[i].name, name))
            return &m->types[i];
    return NULL;
}

int vp_names_has(vp_names l, const char *s)
{
    size_t i;
    for (i = 0; s && i < l.n; i++)
        if (!strcmp(l.v[i], s))
            return 1;
    return 0;
}

/* The places a location names (a name, or a list's parts). */
static size_t vp__parts(const vp_machine *m, const vp_loc *l, size_t i, const vp_place **out)
{
    *out = l->kind == VP_NAME && i == 0 ? vp_place_of(m, l->name)
           : l->kind == VP_LIST && i < l->count ? vp_place_of(m, l->names[i]) : NULL;
    return l->kind == VP_NAME ? 1 : l->kind == VP_LIST ? l->count : 0;
}

int vp_overlap(const vp_machine *m, const vp_loc *a, const vp_loc *b)
{
    size_t i, j, x, y, na, nb;
    const vp_place *pa, *pb;
    na = vp__parts(m, a, 0, &pa);
    nb = vp__parts(m, b, 0, &pb);
    for (i = 0; i < na; i++) {
        vp__parts(m, a, i, &pa);
        for (j = 0; pa && j < nb; j++) {
            vp__parts(m, b, j, &pb);
            for (x = 0; pb && x < pa->nunits; x++)
                for (y = 0; y < pb->nunits; y++)
                    if (pa->units[x] == pb->units[y])
                        return 1;
        }
    }
    return 0;
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

static void vp__op(vp_reader *r, const char *name, const vp_loc *a, const vp_loc *b,
                   const char *type)
{
    vp__puts(r, r->nops++ ? ", [\"" : "[\"");
    vp__puts(r, name);
    vp__put(r, "\", ", 3);
    vp__put_loc(r, a);
    vp__put(r, ", ", 2);
    vp__put_loc(r, b);
    if (type) {
        vp__put(r, ", ", 2);
        vp__put_string(r, type);
    }
    vp__put(r, "]", 1);
}

void vp_mov(vp_reader *r, const vp_loc *dst, const vp_loc *src) { vp__op(r, "mov", dst, src, NULL); }
void vp_swap(vp_reader *r, const vp_loc *a, const vp_loc *b) { vp__op(r, "swap", a, b, NULL); }
void vp_mov_typed(vp_reader *r, const vp_loc *dst, const vp_loc *src, const char *type)
{
    vp__op(r, "mov", dst, src, type);
}
void vp_swap_typed(vp_reader *r, const vp_loc *a, const vp_loc *b, const char *type)
{
    vp__op(r, "swap", a, b, type);
}
void vp_load(vp_reader *r, const vp_loc *reg, const vp_loc *slot) { vp__op(r, "load", reg, slot, NULL); }
void vp_store(vp_reader *r, const vp_loc *reg, const vp_loc *slot) { vp__op(r, "store", reg, slot, NULL); }

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

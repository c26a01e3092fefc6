/* shuf_client: the bitset register shuffler of the "Register shuffling"
 * write-up, speaking verified's JSON-lines protocol (docs/protocol.md), so that `verified conform` can test a real implementation that
 * is not written in Python.
 *
 *   cc -O2 -o shuf_client shuf_client.c
 *   verified conform --cmd ./shuf_client --model swap --registers 6 --exhaustive
 *   ./shuf_client --vectors vectors/swap-n*.jsonl   (no Python at run time)
 *
 * Reads one request per line:
 *   {"moves": [[dst, src], ...], "model": "swap", "temps": [...],
 *    "registers": n, "preserve": "all", "id": ...}
 * and answers each with {"sequence": [...]} (or {"error": "..."} for a request
 * it cannot handle; the next line is still served).  Locations are register
 * numbers 0..63 (or "r0".."r63"); temporaries may be any location and are
 * echoed back verbatim.
 *
 * Models: "swap" emits ["mov", d, s] and ["swap", a, b] (optimal: non-loop
 * moves - cycles); "permi" writes each swap as a 2-element perm; "temp"
 * writes each swap as three movs through the first declared temporary (not
 * optimal: the point is to show the gap in `conform --optimal`).
 *
 * -DBROKEN builds a deliberately wrong shuffler: after a swap it forgets the
 * other destinations of the value that arrived in slot i (it drops tmp
 * instead of keeping it as forward[i]).  That only matters for a cycle whose
 * node also feeds a blade, so the smallest counterexample needs 3 registers.
 *
 * Output is buffered and flushed whenever the input has no complete line
 * left, so a pipelined caller gets batches and an interactive one still gets
 * every answer at once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SLOTS 64

typedef uint64_t mask;

/* ---------------------------------------------------------------------------
 * The shuffler (mirrors verified/algorithms/shuf.py; the write-up uses uint16_t and 16
 * slots, here 64).
 * forward[r]: bit d set = the value now in slot r must end up in slot d.
 * ------------------------------------------------------------------------- */

struct shuf {
    int count;
    mask forward[MAX_SLOTS];
};

enum { ACT_MOVE, ACT_SWAP };

struct shuf_action {
    int kind;
    int from, to;
};

static void shuf_add(struct shuf *s, int dst, int src)
{
    if (dst != src)
        s->forward[src] |= (mask)1 << dst;
}

/* One action, or 0 when every value is home.  The total number of set bits
 * in forward[] drops by at least one per action, so this terminates. */
static int shuf_next(struct shuf *s, struct shuf_action *a)
{
    mask visited = 0;
    int i = 0;
    while (i < s->count) {
        if (s->forward[i] == 0) {
            i++;
            continue;
        }
        int nxt = __builtin_ctzll(s->forward[i]);
        if (s->forward[nxt] == 0) { /* nxt holds nothing still needed */
            s->forward[i] &= ~((mask)1 << nxt);
            a->kind = ACT_MOVE;
            a->from = i;
            a->to = nxt;
            return 1;
        }
        if (visited & ((mask)1 << nxt)) { /* the walk closed a cycle */
            mask tmp = s->forward[nxt] & ~((mask)1 << i);
            s->forward[nxt] = s->forward[i] & ~((mask)1 << nxt);
#ifdef BROKEN
            (void)tmp;
            s->forward[i] = 0;
#else
            s->forward[i] = tmp;
#endif
            a->kind = ACT_SWAP;
            a->from = i;
            a->to = nxt;
            return 1;
        }
        visited |= (mask)1 << i;
        i = nxt;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Output buffer
 * ------------------------------------------------------------------------- */

static char *obuf;
static size_t olen, ocap;

static void out_flush(void)
{
    size_t off = 0;
    while (off < olen) {
        ssize_t w = write(1, obuf + off, olen - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            exit(0); /* reader went away */
        }
        off += (size_t)w;
    }
    olen = 0;
}

static void out_mem(const char *p, size_t n)
{
    if (olen + n > ocap) {
        out_flush();
        if (n > ocap) {
            ocap = n * 2;
            obuf = realloc(obuf, ocap);
            if (!obuf)
                abort();
        }
    }
    memcpy(obuf + olen, p, n);
    olen += n;
}

static void out_str(const char *s) { out_mem(s, strlen(s)); }

static void out_int(long v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%ld", v);
    out_mem(b, (size_t)n);
}

/* ---------------------------------------------------------------------------
 * A small JSON reader for the request shape.  Errors are reported by
 * setting `err` to a static message (no quotes or backslashes in it).
 * ------------------------------------------------------------------------- */

struct cur {
    const char *p, *end;
    const char *err;
};

static void ws(struct cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}

static int eat(struct cur *c, char ch)
{
    ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

static int fail(struct cur *c, const char *msg)
{
    if (!c->err)
        c->err = msg;
    return 0;
}

/* A JSON string: sets [*s, *s+*n) to its raw body (escapes left as is). */
static int str(struct cur *c, const char **s, size_t *n)
{
    ws(c);
    if (c->p >= c->end || *c->p != '"')
        return fail(c, "expected a string");
    const char *b = ++c->p;
    while (c->p < c->end && *c->p != '"') {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x20)
            return fail(c, "control character in a string");
        if (ch == '\\') {
            c->p++;
            if (c->p >= c->end)
                break;
        }
        c->p++;
    }
    if (c->p >= c->end)
        return fail(c, "unterminated string");
    *s = b;
    *n = (size_t)(c->p - b);
    c->p++;
    return 1;
}

static int str_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* A non-negative integer that fits comfortably (register numbers, counts). */
static int small_uint(struct cur *c, long *v)
{
    ws(c);
    const char *b = c->p;
    long x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (x > 100000000L)
            return fail(c, "number too large");
        x = x * 10 + (*c->p - '0');
        c->p++;
    }
    if (c->p == b)
        return fail(c, "expected a whole number");
    if (c->p - b > 1 && *b == '0')
        return fail(c, "number with a leading zero");
    if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
        return fail(c, "expected a whole number");
    *v = x;
    return 1;
}

/* Skip any JSON value (for "id"), recording its raw text. */
static int skip_value(struct cur *c, int depth)
{
    ws(c);
    if (depth > 64)
        return fail(c, "value nested too deeply");
    if (c->p >= c->end)
        return fail(c, "expected a value");
    char ch = *c->p;
    if (ch == '"') {
        const char *s;
        size_t n;
        return str(c, &s, &n);
    }
    if (ch == '{' || ch == '[') {
        char close = ch == '{' ? '}' : ']';
        c->p++;
        if (eat(c, close))
            return 1;
        do {
            if (ch == '{') {
                const char *s;
                size_t n;
                if (!str(c, &s, &n) || !eat(c, ':'))
                    return fail(c, "bad object");
            }
            if (!skip_value(c, depth + 1))
                return 0;
        } while (eat(c, ','));
        return eat(c, close) ? 1 : fail(c, "bad array or object");
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        c->p++;
        while (c->p < c->end && strchr("0123456789.eE+-", *c->p))
            c->p++;
        return 1;
    }
    static const char *const words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(words[k]);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[k], n) == 0) {
            c->p += n;
            return 1;
        }
    }
    return fail(c, "expected a value");
}

/* A register: 3 or "r3". */
static int reg(struct cur *c, long *r)
{
    ws(c);
    if (c->p < c->end && *c->p == '"') {
        const char *s;
        size_t n;
        if (!str(c, &s, &n))
            return 0;
        if (n < 2 || n > 4 || s[0] != 'r' || (s[1] == '0' && n > 2))
            return fail(c, "this client only handles registers (0..63 or r0..r63)");
        long x = 0;
        for (size_t k = 1; k < n; k++) {
            if (s[k] < '0' || s[k] > '9')
                return fail(c, "this client only handles registers (0..63 or r0..r63)");
            x = x * 10 + (s[k] - '0');
        }
        *r = x;
    } else if (!small_uint(c, r)) {
        return 0;
    }
    if (*r >= MAX_SLOTS)
        return fail(c, "this client handles at most 64 registers");
    return 1;
}

struct request {
    int nmoves;
    int dst[MAX_SLOTS], src[MAX_SLOTS];
    long registers; /* -1: not given */
    int model;      /* 0 swap, 1 temp, 2 permi; -1 missing */
    const char *temp;
    size_t temp_len; /* first temporary, raw JSON; 0 if none */
    const char *id;
    size_t id_len; /* raw JSON of "id"; 0 if none */
};

enum { M_SWAP, M_TEMP, M_PERMI };

static int parse_request_obj(struct cur *c, struct request *q)
{
    memset(q, 0, sizeof *q);
    q->registers = -1;
    q->model = -1;
    int have_moves = 0;
    mask is_dst = 0;
    if (!eat(c, '{'))
        return fail(c, "a request is a JSON object");
    if (!eat(c, '}')) {
        do {
            const char *k;
            size_t kn;
            if (!str(c, &k, &kn) || !eat(c, ':'))
                return fail(c, "expected \\\"key\\\": value");
            if (str_is(k, kn, "moves")) {
                have_moves = 1;
                if (!eat(c, '['))
                    return fail(c, "moves must be a list of [dst, src] pairs");
                if (!eat(c, ']')) {
                    do {
                        long d, s;
                        if (!eat(c, '[') || !reg(c, &d) || !eat(c, ',') || !reg(c, &s) || !eat(c, ']'))
                            return fail(c, "a move is a [dst, src] pair of registers");
                        if (is_dst & ((mask)1 << d))
                            return fail(c, "a destination is written twice");
                        is_dst |= (mask)1 << d;
                        q->dst[q->nmoves] = (int)d;
                        q->src[q->nmoves] = (int)s;
                        q->nmoves++;
                    } while (eat(c, ','));
                    if (!eat(c, ']'))
                        return fail(c, "moves must be a list of [dst, src] pairs");
                }
            } else if (str_is(k, kn, "model")) {
                const char *s;
                size_t n;
                if (!str(c, &s, &n))
                    return fail(c, "model must be a string");
                if (str_is(s, n, "swap"))
                    q->model = M_SWAP;
                else if (str_is(s, n, "temp"))
                    q->model = M_TEMP;
                else if (str_is(s, n, "permi"))
                    q->model = M_PERMI;
                else
                    return fail(c, "this client handles the swap, temp and permi models");
            } else if (str_is(k, kn, "registers")) {
                if (!small_uint(c, &q->registers))
                    return fail(c, "registers must be a whole number");
                if (q->registers > MAX_SLOTS)
                    return fail(c, "this client handles at most 64 registers");
            } else if (str_is(k, kn, "temps")) {
                if (!eat(c, '['))
                    return fail(c, "temps must be a list");
                if (!eat(c, ']')) {
                    do {
                        ws(c);
                        const char *b = c->p;
                        if (c->p < c->end && *c->p == '"') {
                            const char *s;
                            size_t n;
                            if (!str(c, &s, &n))
                                return 0;
                        } else {
                            long v;
                            if (!small_uint(c, &v))
                                return fail(c, "a temporary is a location");
                        }
                        if (!q->temp) {
                            q->temp = b;
                            q->temp_len = (size_t)(c->p - b);
                        }
                    } while (eat(c, ','));
                    if (!eat(c, ']'))
                        return fail(c, "temps must be a list");
                }
            } else if (str_is(k, kn, "preserve")) {
                const char *s;
                size_t n;
                if (!str(c, &s, &n) || !(str_is(s, n, "all") || str_is(s, n, "loops")))
                    return fail(c, "preserve must be all or loops");
                /* the shuffler's output meets both contracts */
            } else if (str_is(k, kn, "id")) {
                ws(c);
                const char *b = c->p;
                if (!skip_value(c, 0))
                    return 0;
                q->id = b;
                q->id_len = (size_t)(c->p - b);
            } else {
                return fail(c, "unknown field");
            }
        } while (eat(c, ','));
        if (!eat(c, '}'))
            return fail(c, "expected , or } in the request");
    }
    if (!have_moves)
        return fail(c, "missing moves");
    if (q->model < 0)
        return fail(c, "missing model");
    long top = 0;
    for (int k = 0; k < q->nmoves; k++) {
        if (q->dst[k] + 1 > top)
            top = q->dst[k] + 1;
        if (q->src[k] + 1 > top)
            top = q->src[k] + 1;
    }
    if (q->registers < 0)
        q->registers = top;
    else if (top > q->registers)
        return fail(c, "a move names a register outside the register file");
    return 1;
}

static int parse_request(struct cur *c, struct request *q)
{
    if (!parse_request_obj(c, q))
        return 0;
    ws(c);
    if (c->p != c->end)
        return fail(c, "trailing characters after the request");
    return 1;
}

/* ---------------------------------------------------------------------------
 * Answering
 * ------------------------------------------------------------------------- */

static void out_open(const struct request *q)
{
    out_str("{");
    if (q->id_len) {
        out_str("\"id\": ");
        out_mem(q->id, q->id_len);
        out_str(", ");
    }
}

static void out_error(const struct request *q, const char *msg)
{
    out_open(q);
    out_str("\"error\": \"");
    out_str(msg);
    out_str("\"}\n");
}

static void out_mov(int *first, int d, int s)
{
    out_str(*first ? "[\"mov\", " : ", [\"mov\", ");
    *first = 0;
    out_int(d);
    out_str(", ");
    out_int(s);
    out_str("]");
}

static void out_temp_mov(int *first, const struct request *q, int to_temp, int r)
{
    out_str(*first ? "[\"mov\", " : ", [\"mov\", ");
    *first = 0;
    if (to_temp) {
        out_mem(q->temp, q->temp_len);
        out_str(", ");
        out_int(r);
    } else {
        out_int(r);
        out_str(", ");
        out_mem(q->temp, q->temp_len);
    }
    out_str("]");
}

static int errors;

static void answer(const char *line, size_t len)
{
    struct cur c = {line, line + len, NULL};
    struct request q;
    if (!parse_request(&c, &q)) {
        memset(&q, 0, sizeof q);
        out_error(&q, c.err);
        errors = 1;
        return;
    }
    struct shuf s;
    memset(&s, 0, sizeof s);
    s.count = (int)q.registers;
    for (int k = 0; k < q.nmoves; k++)
        shuf_add(&s, q.dst[k], q.src[k]);
    /* a swap is needed iff some cycle exists; in the temp model that needs a
     * temporary, so check before writing anything */
    struct shuf dry = s;
    struct shuf_action a;
    if (q.model == M_TEMP && !q.temp_len) {
        while (shuf_next(&dry, &a)) {
            if (a.kind == ACT_SWAP) {
                out_error(&q, "the move has a cycle: declare a temporary (temps)");
                errors = 1;
                return;
            }
        }
    }
    out_open(&q);
    out_str("\"sequence\": [");
    int first = 1;
    while (shuf_next(&s, &a)) {
        if (a.kind == ACT_MOVE) {
            out_mov(&first, a.to, a.from);
        } else if (q.model == M_SWAP) {
            out_str(first ? "[\"swap\", " : ", [\"swap\", ");
            first = 0;
            out_int(a.from);
            out_str(", ");
            out_int(a.to);
            out_str("]");
        } else if (q.model == M_PERMI) {
            out_str(first ? "[\"perm\", [[" : ", [\"perm\", [[");
            first = 0;
            out_int(a.from);
            out_str(", ");
            out_int(a.to);
            out_str("], [");
            out_int(a.to);
            out_str(", ");
            out_int(a.from);
            out_str("]]]");
        } else { /* temp: t <- a; a <- b; b <- t */
            out_temp_mov(&first, &q, 1, a.from);
            out_mov(&first, a.from, a.to);
            out_temp_mov(&first, &q, 0, a.to);
        }
    }
    out_str("]}\n");
}

/* ---------------------------------------------------------------------------
 * --vectors: check this shuffler against `verified vectors` files with no
 * Python at run time (the format is in the vectors' README.md).
 * ------------------------------------------------------------------------- */

static long n_vectors, n_wrong, n_suboptimal;

static void check_vector(const char *line, size_t len)
{
    struct cur c = {line, line + len, NULL};
    struct request q;
    int have_req = 0, nexp = 0;
    long expected[MAX_SLOTS], optimal = -1;
    const char *id = "?";
    size_t id_len = 1;
    if (!eat(&c, '{'))
        goto bad;
    do {
        const char *k;
        size_t kn;
        if (!str(&c, &k, &kn) || !eat(&c, ':'))
            goto bad;
        if (str_is(k, kn, "request")) {
            if (!parse_request_obj(&c, &q))
                goto bad;
            have_req = 1;
        } else if (str_is(k, kn, "expected")) {
            if (!eat(&c, '['))
                goto bad;
            if (!eat(&c, ']')) {
                do {
                    ws(&c);
                    if (nexp >= MAX_SLOTS)
                        goto bad;
                    if ((size_t)(c.end - c.p) >= 4 && memcmp(c.p, "null", 4) == 0) {
                        c.p += 4;
                        expected[nexp++] = -1;
                    } else if (!small_uint(&c, &expected[nexp++])) {
                        goto bad;
                    }
                } while (eat(&c, ','));
                if (!eat(&c, ']'))
                    goto bad;
            }
        } else if (str_is(k, kn, "optimal")) {
            ws(&c);
            if ((size_t)(c.end - c.p) >= 4 && memcmp(c.p, "null", 4) == 0) {
                c.p += 4;
                optimal = -1;
            } else if (!small_uint(&c, &optimal)) {
                goto bad;
            }
        } else if (str_is(k, kn, "id")) {
            ws(&c);
            id = c.p;
            if (!skip_value(&c, 0))
                goto bad;
            id_len = (size_t)(c.p - id);
        } else if (!skip_value(&c, 0)) {
            goto bad;
        }
    } while (eat(&c, ','));
    if (!eat(&c, '}') || !have_req || nexp != q.registers)
        goto bad;
    n_vectors++;
    if (optimal < 0) /* no sequence exists; this client has no opinion */
        return;
    struct shuf s;
    memset(&s, 0, sizeof s);
    s.count = (int)q.registers;
    for (int k = 0; k < q.nmoves; k++)
        shuf_add(&s, q.dst[k], q.src[k]);
    long reg[MAX_SLOTS], length = 0;
    for (int r = 0; r < q.registers; r++)
        reg[r] = r;
    struct shuf_action a;
    while (shuf_next(&s, &a)) {
        if (a.kind == ACT_MOVE) {
            reg[a.to] = reg[a.from];
            length++;
        } else {
            long t = reg[a.to];
            reg[a.to] = reg[a.from];
            reg[a.from] = t;
            length += q.model == M_TEMP ? 3 : 1; /* temp: three movs */
        }
        if (length > 4 * MAX_SLOTS * MAX_SLOTS)
            break; /* cannot happen for a correct shuffler */
    }
    for (int r = 0; r < q.registers; r++) {
        if (expected[r] >= 0 && reg[r] != expected[r]) {
            if (n_wrong++ < 5)
                fprintf(stderr, "WRONG %.*s: r%d holds r%ld, expected r%ld\n",
                        (int)id_len, id, r, reg[r], expected[r]);
            return;
        }
    }
    /* optimal in the swap model; in temp and permi (a swap becomes three
     * movs or a 2-element perm) it only claims not to beat the optimum */
    if (q.model == M_SWAP ? length != optimal : length < optimal) {
        if (n_suboptimal++ < 5)
            fprintf(stderr, "NOT OPTIMAL %.*s: %ld operations, optimum %ld\n",
                    (int)id_len, id, length, optimal);
    }
    return;
bad:
    n_wrong++;
    fprintf(stderr, "cannot read vector %.*s: %s\n", (int)id_len, id,
            c.err ? c.err : "not a vector line");
}

static int vectors_main(int argc, char **argv)
{
    for (int f = 2; f < argc; f++) {
        FILE *in = fopen(argv[f], "r");
        if (!in) {
            perror(argv[f]);
            return 2;
        }
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, in)) > 0) {
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                n--;
            if (n > 0)
                check_vector(line, (size_t)n);
        }
        free(line);
        fclose(in);
    }
    printf("vectors: %ld checked, %ld wrong, %ld not optimal\n", n_vectors, n_wrong,
           n_suboptimal);
    return n_wrong || n_suboptimal ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--vectors") == 0)
        return vectors_main(argc, argv);
    (void)argv;
    ocap = 1 << 16;
    obuf = malloc(ocap);
    size_t cap = 1 << 16, len = 0, start = 0;
    char *buf = malloc(cap);
    if (!obuf || !buf)
        return 3;
    int eof = 0;
    for (;;) {
        /* answer every complete line in the buffer */
        for (;;) {
            char *nl = memchr(buf + start, '\n', len - start);
            if (!nl)
                break;
            size_t n = (size_t)(nl - (buf + start));
            const char *p = buf + start;
            size_t k = 0;
            while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
                k++;
            if (k < n)
                answer(p, n);
            start += n + 1;
        }
        if (eof)
            break;
        /* no complete line left: hand over what we have, then block */
        out_flush();
        if (start > 0) {
            memmove(buf, buf + start, len - start);
            len -= start;
            start = 0;
        }
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf)
                return 3;
        }
        ssize_t r = read(0, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return 3;
        }
        if (r == 0) {
            eof = 1;
            if (len > start) { /* last line without a newline */
                if (len == cap) {
                    buf = realloc(buf, cap + 1);
                    if (!buf)
                        return 3;
                }
                buf[len++] = '\n';
            }
        } else {
            len += (size_t)r;
        }
    }
    out_flush();
    return errors ? 2 : 0;
}

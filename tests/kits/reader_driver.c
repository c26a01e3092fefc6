/* reader_driver.c: shows what kits/c/verified_protocol.h reads, for the
 * golden tests in tests/kits/test_readers.py (tests/kits/reader_driver.rs
 * prints the same lines from the Rust kit).
 *
 *   reader_driver          one line per request: what the reader decoded
 *                          ("ok ..." or "error id=... message")
 *   reader_driver answer   answers each request with every writer call
 *                          (model "decline": vp_answer_unsupported(preserve))
 *
 * Decoded text is printed byte by byte: printable ASCII as is, a backslash
 * as \\, every other byte as \xNN, so the golden lines pin exact bytes.
 */
#define VERIFIED_PROTOCOL_IMPLEMENTATION
#include "verified_protocol.h"

#include <string.h>

static void text(const char *s)
{
    if (!s) {
        putchar('-');
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\')
            fputs("\\\\", stdout);
        else if (c >= 0x20 && c < 0x7f)
            putchar(c);
        else
            printf("\\x%02x", c);
    }
}

static void loc(const vp_loc *l)
{
    size_t i;
    switch (l->kind) {
    case VP_REG:
        printf("%lld", l->num);
        break;
    case VP_IMM:
        printf("{imm %lld}", l->num);
        break;
    case VP_NAME:
        putchar('"');
        text(l->name);
        putchar('"');
        break;
    case VP_LIST:
        putchar('[');
        for (i = 0; i < l->count; i++) {
            fputs(i ? ", \"" : "\"", stdout);
            text(l->names[i]);
            putchar('"');
        }
        putchar(']');
        break;
    }
}

static void dump(const vp_request *q)
{
    size_t i;
    fputs("ok id=", stdout);
    text(q->id);
    fputs(" model=", stdout);
    text(q->model);
    fputs(" preserve=", stdout);
    text(q->preserve);
    printf(" registers=%ld machine=", q->registers);
    text(q->machine);
    fputs(" machine_json=", stdout);
    text(q->machine_json);
    fputs(" moves=[", stdout);
    for (i = 0; i < q->nmoves; i++) {
        if (i)
            fputs(", ", stdout);
        loc(&q->moves[i].dst);
        fputs(" <- ", stdout);
        loc(&q->moves[i].src);
    }
    fputs("] temps=[", stdout);
    for (i = 0; i < q->ntemps; i++) {
        if (i)
            fputs(", ", stdout);
        loc(&q->temps[i]);
    }
    fputs("]\n", stdout);
}

static void answer(vp_reader *r, const vp_request *q)
{
    size_t i;
    vp_begin(r);
    for (i = 0; i < q->nmoves; i++)
        vp_mov(r, &q->moves[i].dst, &q->moves[i].src);
    if (q->model && !strcmp(q->model, "decline")) {
        vp_answer_unsupported(r, q->preserve); /* discards the begun sequence */
        return;
    }
    for (i = 0; i < q->ntemps; i++)
        vp_swap(r, &q->temps[i], &q->temps[i]);
    if (q->nmoves) {
        vp_perm(r, q->moves, q->nmoves);
        vp_load(r, &q->moves[0].dst, &q->moves[0].src);
        vp_store(r, &q->moves[0].dst, &q->moves[0].src);
    }
    vp_end(r);
}

int main(int argc, char **argv)
{
    int answering = argc > 1 && !strcmp(argv[1], "answer"), rc;
    vp_reader *r = vp_open(stdin, stdout);
    const vp_request *q;
    if (!r)
        return 2;
    while ((rc = vp_read(r, &q)) != 0) {
        if (answering && rc < 0)
            vp_answer_error(r, vp_error(r));
        else if (answering)
            answer(r, q);
        else if (rc < 0) {
            fputs("error id=", stdout);
            text(vp_id(r));
            fputs(" ", stdout);
            text(vp_error(r));
            putchar('\n');
        } else
            dump(q);
        fflush(stdout);
    }
    vp_close(r);
    return 0;
}

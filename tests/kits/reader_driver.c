/* reader_driver.c: shows what kits/c/verified_protocol.h reads, for the
 * golden tests in tests/kits/test_readers.py (tests/kits/reader_driver.rs
 * prints the same lines from the Rust kit).
 *
 *   reader_driver          one line per request: what the reader decoded
 *                          ("ok ..." or "error id=... message")
 *   reader_driver answer   answers each request with every writer call
 *                          (model "decline": vp_answer_unsupported(preserve))
 *   reader_driver machine  the machine object each request carries, as parsed:
 *                          one line per field, class, group, alias, type, pair
 *                          move and place (units by name), then "end"
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
        if (q->moves[i].type) {
            fputs(" : ", stdout);
            text(q->moves[i].type);
        }
    }
    fputs("] temps=[", stdout);
    for (i = 0; i < q->ntemps; i++) {
        if (i)
            fputs(", ", stdout);
        loc(&q->temps[i]);
    }
    fputs("]\n", stdout);
}

static void names(const char *label, vp_names l)
{
    size_t i;
    printf(" %s=", label);
    for (i = 0; i < l.n; i++) {
        if (i)
            putchar(',');
        text(l.v[i]);
    }
}

static void num(const char *label, long long v)
{
    if (v < 0)
        printf(" %s=-", label);
    else
        printf(" %s=%lld", label, v);
}

static void machine(const vp_request *q)
{
    const vp_machine *m = q->machine_obj;
    size_t i, j;
    if (!m) {
        fputs("no machine object\n", stdout);
        return;
    }
    fputs("machine name=", stdout);
    text(m->name);
    names("swap", m->swap);
    printf(" mem_to_mem=%d", m->mem_to_mem);
    names("immediate_to", m->immediate_to);
    printf(" cross_class=%d cost=%lld,%lld,%lld,%lld,%lld", m->cross_class, m->cost_mov,
           m->cost_load, m->cost_store, m->cost_swap, m->cost_imm);
    num("unit_bits", m->unit_bits);
    num("immediate_bits_reg", m->immediate_bits_reg);
    num("immediate_bits_mem", m->immediate_bits_mem);
    names("reserved", m->reserved);
    names("scratch", m->scratch);
    printf(" units=%lu source=", (unsigned long)m->nunits);
    text(m->source);
    putchar('\n');
    for (i = 0; i < m->nclasses; i++) {
        fputs("class ", stdout);
        text(m->classes[i].name);
        printf(" width=%d immediate=%d", m->classes[i].width, m->classes[i].immediate);
        names("swap", m->classes[i].swap);
        names("registers", m->classes[i].registers);
        putchar('\n');
    }
    for (i = 0; i < m->nstack; i++) {
        printf("group %lu width=%d immediate=%d", (unsigned long)i, m->stack[i].width,
               m->stack[i].immediate);
        names("slots", m->stack[i].slots);
        putchar('\n');
    }
    for (i = 0; i < m->naliases; i++) {
        fputs("alias ", stdout);
        text(m->aliases[i].name);
        names("parts", m->aliases[i].parts);
        putchar('\n');
    }
    for (i = 0; i < m->ntypes; i++) {
        fputs("type ", stdout);
        text(m->types[i].name);
        printf(" width=%d stack=%d", m->types[i].width, m->types[i].stack);
        names("classes", m->types[i].classes);
        printf(" found=%d\n", vp_type_of(m, m->types[i].name) == &m->types[i]);
    }
    for (i = 0; i < m->npair_moves; i++) {
        fputs("pair ", stdout);
        text(m->pair_moves[i].pair);
        fputs(" with=", stdout);
        text(m->pair_moves[i].with);
        putchar('\n');
    }
    for (i = 0; i < m->nplaces; i++) {
        const vp_place *p = &m->places[i];
        fputs("place ", stdout);
        text(p->name);
        printf(" %s cls=%d group=%d width=%d found=%d units=", p->kind == VP_REGISTER ? "reg" : "mem",
               p->cls, p->group, p->width, vp_place_of(m, p->name) == p);
        for (j = 0; j < p->nunits; j++) {
            if (j)
                putchar(',');
            text(m->unit_names[p->units[j]]);
        }
        putchar('\n');
    }
    for (i = 0; i < q->nmoves; i++) {
        fputs("move ", stdout);
        loc(&q->moves[i].dst);
        fputs(" <- ", stdout);
        loc(&q->moves[i].src);
        fputs(" type=", stdout);
        text(q->moves[i].type);
        printf(" known=%d overlap=%d\n", !q->moves[i].type || vp_type_of(m, q->moves[i].type),
               vp_overlap(m, &q->moves[i].dst, &q->moves[i].src));
    }
    fputs("end\n", stdout);
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
    for (i = 0; i < q->nmoves; i++)
        if (q->moves[i].type) {
            vp_mov_typed(r, &q->moves[i].dst, &q->moves[i].src, q->moves[i].type);
            vp_swap_typed(r, &q->moves[i].dst, &q->moves[i].src, q->moves[i].type);
        }
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
    int machines = argc > 1 && !strcmp(argv[1], "machine");
    vp_reader *r = vp_open(stdin, stdout);
    const vp_request *q;
    if (!r)
        return 2;
    while ((rc = vp_read(r, &q)) != 0) {
        if (answering && rc < 0)
            vp_answer_error(r, vp_error(r));
        else if (answering)
            answer(r, q);
        else if (machines && rc > 0)
            machine(q);
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

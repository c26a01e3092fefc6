/* machine_resolver.c: a worked adapter for machine requests (docs/machines.md),
 * using only the structs kits/c/verified_protocol.h parses the request's
 * machine object into: no JSON code of its own.
 *
 *   cc -std=c99 -O2 -I kits/c -o machine_resolver kits/c/machine_resolver.c
 *   verified conform --cmd ./machine_resolver --machine x86-64 --exhaustive
 *
 * The resolver, over places (registers and slots: vp_place, units included):
 * a list move [a, b] <- [c, d] is split into a <- c, b <- d; moves of an
 * immediate go last (a constant has no reader); the others go in Kahn's
 * order (a move whose destination no pending move reads, by units:
 * vp_overlap), a slot-to-slot move through a free scratch register when the
 * machine has no mem_to_mem.  What is left is cycles d1 <- d2 <- ... <- d1,
 * each broken through a scratch register T of the cycle's width (or, for a
 * typed move [dst, src, TYPE], one that may hold the type): with T's
 * class's swaps when they reach every place of the cycle (x86 xchg:
 * mov T, d1; swap T, dk; ...; swap T, d2; mov d1, T), else by parking d1
 * in T (mov T, d1; d1 <- d2; ...; dk <- T), whose slot-to-slot steps need a
 * second scratch: never T while it holds the parked value.  Where no
 * second scratch is free it borrows a register B (the machine's declared
 * "scratch" first, never a reserved one nor one a pending move names):
 * mov dj, B saves B into the slot just vacated, mov B, dj+1 carries the
 * value, and once the cycle ends B and dj trade back through a free
 * temporary of B's class (untyped: all of B comes back).  The scratch
 * registers are the request's temps (conform declares them).  A typed
 * move's operations carry its type.  Where no scratch can be had it
 * declines ({"unsupported"}); on the small machines of x86-64 and aarch64
 * that is exactly the cases with no sequence (docs/clients.md).
 *
 * -DBROKEN plants the bug docs/machines.md describes (a JIT's): the
 * slot-to-slot step of a parked cycle takes T itself as its scratch,
 * overwriting the parked value.  `verified conform` must reject it.
 */
#define VERIFIED_PROTOCOL_IMPLEMENTATION
#include "verified_protocol.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    vp_loc dst, src;
    const vp_place *d, *s; /* s is NULL for an immediate */
    const char *type;
    int done;
} job;

/* A borrowed register: b, saved into the slot `at` (a cycle's vacated
 * destination), carries at's final value until the cycle ends. */
typedef struct {
    const vp_place *b;
    vp_loc at;
    const vp_place *via; /* a temporary of b's class and width: the restore's middle */
} loan;

static vp_reader *rd;
static const vp_request *q;
static const vp_machine *m;
static job *jobs;
static size_t njobs;
static loan loans[8];
static size_t nloans;

static vp_loc name_loc(const char *name)
{
    vp_loc l;
    memset(&l, 0, sizeof l);
    l.kind = VP_NAME;
    l.name = name;
    return l;
}

static int has(vp_names l, const char *s) { return vp_names_has(l, s); }

/* May place p hold a value of width w (untyped: exactly w) or of type t? */
static int holds(const vp_place *p, int w, const char *type)
{
    const vp_type *t = vp_type_of(m, type);
    if (!t)
        return p->width == w;
    if (p->kind == VP_SLOT)
        return t->stack && p->width >= t->width;
    return has(t->classes, m->classes[p->cls].name) && p->width >= t->width;
}

/* A scratch register (a declared temporary) for a value like job j's,
 * other than `busy` (a parked value's register). */
static const vp_place *scratch(const job *j, const vp_place *busy)
{
    size_t i;
    for (i = 0; i < q->ntemps; i++) {
        const vp_place *p = q->temps[i].kind == VP_NAME ? vp_place_of(m, q->temps[i].name) : NULL;
        if (p && p->kind == VP_REGISTER && p != busy && holds(p, j->d->width, j->type))
            return p;
    }
    return NULL;
}

static void mov(const vp_loc *d, const vp_loc *s, const char *type) { vp_mov_typed(rd, d, s, type); }

/* A temporary register of p's class and width (free once a cycle ends), or NULL. */
static const vp_place *twin(const vp_place *p)
{
    size_t i;
    for (i = 0; i < q->ntemps; i++) {
        const vp_place *t = q->temps[i].kind == VP_NAME ? vp_place_of(m, q->temps[i].name) : NULL;
        if (t && t != p && t->kind == VP_REGISTER && t->cls == p->cls && t->width == p->width)
            return t;
    }
    return NULL;
}

/* May register p be borrowed now: not reserved, not a temporary (those
 * are free anyway), not lent already, and sharing no unit with a pending
 * move (whose value it holds or will receive)? */
static int lendable(const vp_place *p)
{
    vp_loc l = name_loc(p->name);
    size_t k;
    if (p->kind != VP_REGISTER || has(m->reserved, p->name))
        return 0;
    for (k = 0; k < q->ntemps; k++)
        if (vp_overlap(m, &l, &q->temps[k]))
            return 0;
    for (k = 0; k < nloans; k++)
        if (loans[k].b == p)
            return 0;
    for (k = 0; k < njobs; k++)
        if (!jobs[k].done && jobs[k].s && (vp_overlap(m, &l, &jobs[k].dst) || vp_overlap(m, &l, &jobs[k].src)))
            return 0;
    return 1;
}

/* d <- s (slot to slot) for job j with no scratch free: borrow a register
 * B, save it into the vacated slot d, load s into B; B then holds d's
 * value and d holds B's, put right when the cycle ends (restore).  The
 * machine's declared scratch registers are borrowed first. */
static int borrow(const job *j, const vp_loc *d, const vp_place *pd, const vp_loc *s)
{
    size_t pass, i;
    if (nloans == sizeof loans / sizeof *loans)
        return -1;
    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < m->nplaces; i++) {
            const vp_place *b = &m->places[i];
            vp_loc bl;
            if ((pass == 0) != (has(m->scratch, b->name) != 0) || b->width != pd->width || !holds(b, pd->width, j->type)
                || !lendable(b) || !twin(b))
                continue;
            bl = name_loc(b->name);
            mov(d, &bl, NULL);
            mov(&bl, s, j->type);
            loans[nloans].b = b;
            loans[nloans].at = *d;
            loans[nloans++].via = twin(b);
            return 0;
        }
    return -1;
}

/* After a cycle: each borrowed register and the slot holding its saved
 * value trade places through a free temporary of its class. */
static void restore(void)
{
    while (nloans) {
        const loan *l = &loans[--nloans];
        vp_loc b = name_loc(l->b->name), v = name_loc(l->via->name);
        mov(&v, &l->at, NULL);
        mov(&l->at, &b, NULL);
        mov(&b, &v, NULL);
    }
}

/* dst <- src for job j's value; a slot-to-slot copy through a scratch
 * register that is not `busy`.  0, or -1 when there is none. */
static int copy(const job *j, const vp_loc *d, const vp_place *pd, const vp_loc *s,
                const vp_place *ps, const vp_place *busy)
{
    if (pd->kind == VP_SLOT && ps->kind == VP_SLOT && !m->mem_to_mem) {
#ifdef BROKEN
        const vp_place *t = busy ? busy : scratch(j, NULL); /* the planted bug */
#else
        const vp_place *t = scratch(j, busy);
#endif
        vp_loc tl;
        if (!t)
            return busy ? borrow(j, d, pd, s) : -1;
        tl = name_loc(t->name);
        mov(&tl, s, j->type);
        mov(d, &tl, j->type);
        return 0;
    }
    mov(d, s, j->type);
    return 0;
}

/* Is job j's destination read by another pending move? */
static int blocked(size_t j)
{
    size_t k;
    for (k = 0; k < njobs; k++)
        if (k != j && !jobs[k].done && jobs[k].s && vp_overlap(m, &jobs[j].dst, &jobs[k].src))
            return 1;
    return 0;
}

/* The pending job whose destination is place p, or -1. */
static long writer_of(const vp_place *p)
{
    size_t k;
    for (k = 0; k < njobs; k++)
        if (!jobs[k].done && jobs[k].s && jobs[k].d == p)
            return (long)k;
    return -1;
}

/* May register t swap with every place of the cycle starting at job i? */
static int swaps_reach(const vp_place *t, size_t i)
{
    vp_names sw = m->classes[t->cls].swap;
    long k = (long)i;
    do {
        const vp_place *p = jobs[k].d;
        if (p->kind == VP_SLOT ? !has(sw, "reg-mem")
                               : !has(sw, "reg-reg") || (p->cls != t->cls && !m->cross_class))
            return 0;
        k = writer_of(jobs[k].s);
    } while (k >= 0 && k != (long)i);
    return 1;
}

static int cycle(size_t i)
{
    const vp_place *t = scratch(&jobs[i], NULL);
    vp_loc tl;
    long k;
    if (!t)
        return -1;
    tl = name_loc(t->name);
    mov(&tl, &jobs[i].dst, jobs[i].type);
    if (swaps_reach(t, i)) { /* T holds d1: swap it down the cycle from dk */
        size_t order[64], n = 0;
        for (k = writer_of(jobs[i].s); k >= 0 && k != (long)i && n < 64; k = writer_of(jobs[k].s))
            order[n++] = (size_t)k;
        if (n == 64)
            return -1;
        while (n--) {
            vp_swap_typed(rd, &tl, &jobs[order[n]].dst, jobs[order[n]].type);
            jobs[order[n]].done = 1;
        }
        mov(&jobs[i].dst, &tl, jobs[i].type);
        jobs[i].done = 1;
        return 0;
    }
    for (k = (long)i;;) { /* park d1 in T and rotate */
        job *j = &jobs[k];
        long next = writer_of(j->s);
        j->done = 1;
        if (next < 0 || next == (long)i || jobs[next].done) {
            mov(&j->dst, &tl, j->type);
            restore();
            return 0;
        }
        if (copy(j, &j->dst, j->d, &j->src, j->s, t))
            return -1;
        k = next;
    }
}

/* Is k the sign-extension of a `bits`-bit constant (immediate_bits; -1: no limit)? */
static int fits(long long k, long long bits)
{
    return bits < 0 || bits >= 64 || (bits > 0 && k >= -(1LL << (bits - 1)) && k < (1LL << (bits - 1)));
}

/* May place p be written from the immediate k in one mov? */
static int takes_immediate(const vp_place *p, long long k)
{
    if (p->kind == VP_SLOT)
        return has(m->immediate_to, "mem") && m->stack[p->group].immediate && fits(k, m->immediate_bits_mem);
    return has(m->immediate_to, "reg") && m->classes[p->cls].immediate && fits(k, m->immediate_bits_reg);
}

/* dst <- #k: straight, or through a scratch register that takes it. */
static int immediate(const job *j)
{
    size_t i;
    if (takes_immediate(j->d, j->src.num)) {
        mov(&j->dst, &j->src, j->type);
        return 0;
    }
    for (i = 0; i < q->ntemps; i++) {
        const vp_place *p = q->temps[i].kind == VP_NAME ? vp_place_of(m, q->temps[i].name) : NULL;
        if (p && p->kind == VP_REGISTER && takes_immediate(p, j->src.num) && holds(p, j->d->width, j->type)) {
            vp_loc tl = name_loc(p->name);
            mov(&tl, &j->src, j->type);
            mov(&j->dst, &tl, j->type);
            return 0;
        }
    }
    return -1;
}

/* The answer to one machine request: 0, or -1 to decline. */
static int resolve(void)
{
    size_t i, k;
    int progress = 1;
    nloans = 0;
    for (i = 0, njobs = 0; i < q->nmoves; i++) { /* split lists into their parts */
        const vp_move *mv = &q->moves[i];
        size_t parts = mv->dst.kind == VP_LIST && mv->src.kind == VP_LIST ? mv->dst.count : 1;
        for (k = 0; k < parts; k++) {
            job *j = &jobs[njobs++];
            j->dst = parts > 1 ? name_loc(mv->dst.names[k]) : mv->dst;
            j->src = parts > 1 ? name_loc(mv->src.names[k]) : mv->src;
            j->type = mv->type;
            j->d = vp_place_of(m, j->dst.kind == VP_NAME ? j->dst.name : j->dst.names[0]);
            j->s = mv->src.kind == VP_IMM ? NULL
                   : vp_place_of(m, j->src.kind == VP_NAME ? j->src.name : j->src.names[0]);
            j->done = j->s && vp_loc_equal(&j->dst, &j->src);
            if (!j->d || (mv->src.kind != VP_IMM && !j->s))
                return -1;
        }
    }
    while (progress) /* blades, in Kahn's order */
        for (progress = 0, i = 0; i < njobs; i++)
            if (!jobs[i].done && jobs[i].s && !blocked(i)) {
                if (copy(&jobs[i], &jobs[i].dst, jobs[i].d, &jobs[i].src, jobs[i].s, NULL))
                    return -1;
                jobs[i].done = progress = 1;
            }
    for (i = 0; i < njobs; i++) /* cycles */
        if (!jobs[i].done && jobs[i].s && cycle(i))
            return -1;
    for (i = 0; i < njobs; i++) /* immediates last */
        if (!jobs[i].s && immediate(&jobs[i]))
            return -1;
    return 0;
}

int main(void)
{
    int rc;
    rd = vp_open(stdin, stdout);
    while (rd && (rc = vp_read(rd, &q)) != 0) {
        size_t i, n = 0;
        if (rc < 0) {
            vp_answer_error(rd, vp_error(rd));
            continue;
        }
        if (!(m = q->machine_obj)) {
            vp_answer_unsupported(rd, "this example resolves requests that carry a machine object");
            continue;
        }
        for (i = 0; i < q->nmoves; i++)
            n += q->moves[i].dst.kind == VP_LIST ? q->moves[i].dst.count : 1;
        if (!(jobs = (job *)calloc(n + 1, sizeof *jobs)))
            return 1;
        vp_begin(rd);
        if (resolve())
            vp_answer_unsupported(rd, "this example finds no scratch register for this case");
        else
            vp_end(rd);
        free(jobs);
    }
    vp_close(rd);
    return 0;
}

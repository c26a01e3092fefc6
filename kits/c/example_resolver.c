/* example_resolver.c: a worked adapter from a parallel-move resolver to
 * verified's JSON-lines protocol, using kits/c/verified_protocol.h.
 *
 *   cc -std=c99 -O2 -o example_resolver kits/c/example_resolver.c
 *   verified conform --cmd ./example_resolver --model swap --registers 6 --exhaustive
 *   verified conform --cmd ./example_resolver --model temp --registers 5 --exhaustive
 *
 * The resolver: drop self-moves; emit the blades in Kahn's order (a move
 * whose destination no pending move still reads can go now: nothing needs
 * the old value); what is left is disjoint cycles (each destination is read
 * by exactly one move of its cycle).  A cycle d1 <- d2 <- ... <- dk <- d1 is
 * k-1 swaps in the "swap" model, or k+1 movs through the first declared
 * temporary in the "temp" model ({"unsupported"} when none is declared).
 * Quadratic in the number of moves: fine for an example, not for a JIT.
 *
 * -DBROKEN plants a bug for the tests: Kahn's loop makes one pass instead
 * of running until no move is ready, so a blade that becomes ready only
 * after a later one is emitted (r2 <- r1 listed after r1 <- r0) is left to
 * the cycle phase, which swaps it.  `verified conform` must reject it (exit 1).
 */
#define VERIFIED_PROTOCOL_IMPLEMENTATION
#include "verified_protocol.h"

#include <stdlib.h>
#include <string.h>

static vp_reader *rd;
static const vp_request *q;
static char *done; /* done[i]: move i is emitted (or is a self-move) */

/* The first pending move whose destination (dst = 1) or source (dst = 0)
 * is `loc`, or -1. */
static long pending(const vp_loc *loc, int dst)
{
    size_t j;
    for (j = 0; j < q->nmoves; j++)
        if (!done[j] && vp_loc_equal(dst ? &q->moves[j].dst : &q->moves[j].src, loc))
            return (long)j;
    return -1;
}

static void blades(void)
{
    size_t i;
    int progress = 1;
    while (progress) {
        for (progress = 0, i = 0; i < q->nmoves; i++)
            if (!done[i] && pending(&q->moves[i].dst, 0) < 0) {
                vp_mov(rd, &q->moves[i].dst, &q->moves[i].src);
                done[i] = progress = 1;
            }
#ifdef BROKEN
        break; /* the planted bug: one pass leaves late-ready blades to cycles() */
#endif
    }
}

/* Each cycle, walked from one of its moves along the sources: through
 * `temp`, or with swaps when temp is NULL. */
static void cycles(const vp_loc *temp)
{
    size_t i;
    for (i = 0; i < q->nmoves; i++) {
        const vp_loc *start = &q->moves[i].dst;
        long j = (long)i;
        if (done[i])
            continue;
        if (temp)
            vp_mov(rd, temp, start);
        for (; j >= 0; j = pending(&q->moves[j].src, 1)) {
            const vp_move *m = &q->moves[j];
            done[j] = 1;
            if (vp_loc_equal(&m->src, start)) { /* closes the cycle */
                if (temp)
                    vp_mov(rd, &m->dst, temp);
                break;
            }
            if (temp)
                vp_mov(rd, &m->dst, &m->src);
            else
                vp_swap(rd, &m->dst, &m->src);
        }
    }
}

int main(void)
{
    int rc;
    rd = vp_open(stdin, stdout);
    while (rd && (rc = vp_read(rd, &q)) != 0) {
        size_t i;
        int swap, has_cycle = 0;
        const vp_loc *temp;
        if (rc < 0) {
            vp_answer_error(rd, vp_error(rd));
            continue;
        }
        swap = q->model && !strcmp(q->model, "swap");
        if (!q->model || (!swap && strcmp(q->model, "temp"))) {
            vp_answer_unsupported(rd, "this example implements the temp and swap models");
            continue;
        }
        temp = !swap && q->ntemps ? &q->temps[0] : NULL;
        if (!(done = (char *)calloc(q->nmoves + 1, 1)))
            return 1;
        for (i = 0; i < q->nmoves; i++)
            done[i] = (char)vp_loc_equal(&q->moves[i].dst, &q->moves[i].src);
        vp_begin(rd);
        blades();
        for (i = 0; i < q->nmoves; i++)
            has_cycle |= !done[i];
        if (has_cycle && !swap && !temp)
            vp_answer_unsupported(rd, "a cycle needs a temporary and the request declares none");
        else {
            cycles(temp);
            vp_end(rd);
        }
        free(done);
    }
    vp_close(rd);
    return 0;
}

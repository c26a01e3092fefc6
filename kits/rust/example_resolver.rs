//! example_resolver.rs: a worked adapter from a parallel-move resolver to
//! verified's JSON-lines protocol, using kits/rust/verified_protocol.rs.
//!
//!   rustc --edition 2021 -O kits/rust/example_resolver.rs -o example_resolver
//!   verified conform --cmd ./example_resolver --model swap --registers 6 --exhaustive
//!   verified conform --cmd ./example_resolver --model temp --registers 5 --exhaustive
//!
//! The resolver: drop self-moves; emit the blades in Kahn's order (a move
//! whose destination no pending move still reads can go now: nothing needs
//! the old value); what is left is disjoint cycles (each destination is read
//! by exactly one move of its cycle).  A cycle d1 <- d2 <- ... <- dk <- d1 is
//! k-1 swaps in the "swap" model, or k+1 movs through the first declared
//! temporary in the "temp" model ({"unsupported"} when none is declared).
//! Quadratic in the number of moves: fine for an example, not for a JIT.
//!
//! `--cfg broken` plants a bug for the tests: Kahn's loop makes one pass
//! instead of running until no move is ready, so a blade that becomes ready
//! only after a later one is emitted (r2 <- r1 listed after r1 <- r0) is left
//! to the cycle phase, which swaps it.  `verified conform` must reject it.
mod verified_protocol;

use std::io::{self, Write};
use verified_protocol::{write_error, write_unsupported, Answer, Line, Loc, Reader, Request};

fn resolve(req: &Request, ans: &mut Answer) -> Result<(), &'static str> {
    let swap = match req.model.as_deref() {
        Some("swap") => true,
        Some("temp") => false,
        _ => return Err("this example implements the temp and swap models"),
    };
    let mut pending: Vec<(&Loc, &Loc)> =
        req.moves.iter().filter(|m| m.dst != m.src).map(|m| (&m.dst, &m.src)).collect();
    let mut progress = true;
    while progress {
        progress = false;
        let mut i = 0;
        while i < pending.len() {
            if pending.iter().any(|m| m.1 == pending[i].0) {
                i += 1;
                continue;
            }
            let (d, s) = pending.remove(i);
            ans.mov(d, s);
            progress = true;
        }
        if cfg!(broken) {
            break; // the planted bug: one pass leaves late-ready blades to the cycles
        }
    }
    let temp = req.temps.first();
    if !pending.is_empty() && !swap && temp.is_none() {
        return Err("a cycle needs a temporary and the request declares none");
    }
    // each cycle, walked from one of its moves along the sources
    while !pending.is_empty() {
        let start = pending[0].0;
        let mut next = Some(pending.remove(0));
        if let (false, Some(t)) = (swap, temp) {
            ans.mov(t, start);
        }
        while let Some((d, s)) = next {
            if s == start { // closes the cycle
                if let (false, Some(t)) = (swap, temp) {
                    ans.mov(d, t);
                }
                break;
            }
            if swap { ans.swap(d, s) } else { ans.mov(d, s) };
            next = pending.iter().position(|m| m.0 == s).map(|j| pending.remove(j));
        }
    }
    Ok(())
}

fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for line in Reader::new(io::stdin().lock()) {
        match line {
            Line::Malformed { id, error } => write_error(&mut out, id.as_deref(), &error)?,
            Line::Request(req) => {
                let mut ans = Answer::new(req.id.as_deref());
                match resolve(&req, &mut ans) {
                    Ok(()) => ans.write_to(&mut out)?,
                    Err(why) => write_unsupported(&mut out, req.id.as_deref(), why)?,
                }
            }
        }
    }
    out.flush()
}

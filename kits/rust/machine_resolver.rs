//! machine_resolver.rs: a worked adapter for machine requests
//! (docs/machines.md), using only the `MachineDesc` that
//! kits/rust/verified_protocol.rs parses the request's machine object into:
//! no JSON code of its own.
//!
//!   rustc --edition 2021 -O kits/rust/machine_resolver.rs -o machine_resolver
//!   verified conform --cmd ./machine_resolver --machine x86-64 --exhaustive
//!
//! The resolver of kits/c/machine_resolver.c, step for step (the tests hold
//! both to the same answers): lists split into their parts; blades in
//! Kahn's order by units (`MachineDesc::overlap`), a slot-to-slot move
//! through a free scratch register; each cycle through a scratch register
//! T that may hold its values: with T's class's swaps when they reach every
//! place of the cycle, else by parking d1 in T, whose slot-to-slot steps
//! take a second scratch, never T, else a borrowed register (the machine's
//! declared scratch first; saved into the vacated slot, given back through
//! a temporary of its class when the cycle ends); immediates last (through
//! a scratch register where the destination takes none).  Scratch registers
//! are the request's temps.  A typed move's operations carry its type.
//! Where no scratch can be had it declines.
//!
//! `--cfg broken` plants the JIT bug of docs/machines.md: the slot-to-slot
//! step of a parked cycle goes through T itself.  conform must reject it.
mod verified_protocol;

use std::io::{self, Write};
use verified_protocol::{
    write_error, write_unsupported, Answer, Line, Loc, MachineDesc, Place, PlaceKind, Reader, Request,
};

struct Job<'a> {
    dst: Loc,
    src: Loc,
    d: &'a Place,
    s: Option<&'a Place>, // None for an immediate
    ty: Option<&'a str>,
    done: bool,
}

struct Resolver<'a> {
    m: &'a MachineDesc,
    req: &'a Request,
    jobs: Vec<Job<'a>>,
    ans: Answer,
    /// Borrowed registers: (B, the vacated slot holding B's saved value,
    /// a temporary of B's class and width for the restore).
    loans: Vec<(&'a Place, Loc, &'a Place)>,
}

fn name(n: &str) -> Loc {
    Loc::Name(n.to_string())
}

impl<'a> Resolver<'a> {
    /// May place p hold a value of width w (untyped: exactly w) or of type ty?
    fn holds(&self, p: &Place, w: u32, ty: Option<&str>) -> bool {
        match ty.and_then(|t| self.m.ty(t)) {
            None => p.width == w,
            Some(t) if p.kind == PlaceKind::Slot => t.stack && p.width >= t.width,
            Some(t) => {
                let cls = &self.m.classes[p.class.unwrap_or(0)].name;
                t.classes.contains(cls) && p.width >= t.width
            }
        }
    }

    fn temps(&self) -> impl Iterator<Item = &'a Place> + '_ {
        let m = self.m;
        self.req.temps.iter().filter_map(move |t| match t {
            Loc::Name(n) => m.place(n).filter(|p| p.kind == PlaceKind::Register),
            _ => None,
        })
    }

    /// A scratch register for job j's value, other than `busy`.
    fn scratch(&self, j: usize, busy: Option<&Place>) -> Option<&'a Place> {
        let (w, ty) = (self.jobs[j].d.width, self.jobs[j].ty);
        self.temps().find(|p| busy.map_or(true, |b| !std::ptr::eq(*p, b)) && self.holds(p, w, ty))
    }

    /// A temporary register of p's class and width (free once a cycle ends).
    fn twin(&self, p: &Place) -> Option<&'a Place> {
        self.temps().find(|t| !std::ptr::eq(*t, p) && t.class == p.class && t.width == p.width)
    }

    /// May register p be borrowed now: not reserved, not a temporary, not
    /// lent already, sharing no unit with a pending move?
    fn lendable(&self, p: &Place) -> bool {
        let l = name(&p.name);
        p.kind == PlaceKind::Register
            && !self.m.reserved.iter().any(|r| *r == p.name)
            && !self.req.temps.iter().any(|t| self.m.overlap(&l, t))
            && !self.loans.iter().any(|(b, _, _)| std::ptr::eq(*b, p))
            && !self.jobs.iter().any(|o| {
                !o.done && o.s.is_some() && (self.m.overlap(&l, &o.dst) || self.m.overlap(&l, &o.src))
            })
    }

    /// d <- s (slot to slot) for job j with no scratch free: borrow B, save it
    /// into the vacated slot d, load s into B; put right when the cycle ends.
    /// The machine's declared scratch registers are borrowed first.
    fn borrow(&mut self, j: usize, d: &Loc, pd: &Place, s: &Loc) -> Result<(), ()> {
        let ty = self.jobs[j].ty;
        let m = self.m;
        if self.loans.len() == 8 {
            return Err(()); // the C example's fixed table
        }
        for pass in 0..2 {
            for b in &m.places {
                let sc = m.scratch.iter().any(|x| *x == b.name);
                if (pass == 0) != sc || b.width != pd.width || !self.holds(b, pd.width, ty) || !self.lendable(b) {
                    continue;
                }
                let via = match self.twin(b) {
                    Some(v) => v,
                    None => continue,
                };
                let bl = name(&b.name);
                self.ans.mov_typed(d, &bl, None);
                self.ans.mov_typed(&bl, s, ty);
                self.loans.push((b, d.clone(), via));
                return Ok(());
            }
        }
        Err(())
    }

    /// After a cycle: each borrowed register and the slot holding its saved
    /// value trade places through a free temporary of its class.
    fn restore(&mut self) {
        while let Some((b, at, via)) = self.loans.pop() {
            let (b, v) = (name(&b.name), name(&via.name));
            self.ans.mov_typed(&v, &at, None);
            self.ans.mov_typed(&at, &b, None);
            self.ans.mov_typed(&b, &v, None);
        }
    }

    /// dst <- src for job j's value; slot to slot through a scratch that is not `busy`.
    fn copy(&mut self, j: usize, d: &Loc, pd: &Place, s: &Loc, ps: &Place, busy: Option<&Place>) -> Result<(), ()> {
        let ty = self.jobs[j].ty;
        if pd.kind == PlaceKind::Slot && ps.kind == PlaceKind::Slot && !self.m.mem_to_mem {
            let t = if cfg!(broken) && busy.is_some() { busy } else { self.scratch(j, busy) };
            let t = match t {
                Some(t) => name(&t.name),
                None if busy.is_some() => return self.borrow(j, d, pd, s),
                None => return Err(()),
            };
            self.ans.mov_typed(&t, s, ty);
            self.ans.mov_typed(d, &t, ty);
            return Ok(());
        }
        self.ans.mov_typed(d, s, ty);
        Ok(())
    }

    fn blocked(&self, j: usize) -> bool {
        self.jobs.iter().enumerate().any(|(k, o)| {
            k != j && !o.done && o.s.is_some() && self.m.overlap(&self.jobs[j].dst, &o.src)
        })
    }

    fn writer_of(&self, p: &Place) -> Option<usize> {
        self.jobs.iter().position(|o| !o.done && o.s.is_some() && std::ptr::eq(o.d, p))
    }

    /// May register t swap with every place of the cycle starting at job i?
    fn swaps_reach(&self, t: &Place, i: usize) -> bool {
        let sw = &self.m.classes[t.class.unwrap_or(0)].swap;
        let has = |k: &str| sw.iter().any(|x| x == k);
        let mut k = i;
        loop {
            let p = self.jobs[k].d;
            let ok = match p.kind {
                PlaceKind::Slot => has("reg-mem"),
                PlaceKind::Register => has("reg-reg") && (p.class == t.class || self.m.cross_class),
            };
            if !ok {
                return false;
            }
            match self.jobs[k].s.and_then(|s| self.writer_of(s)) {
                Some(n) if n != i => k = n,
                _ => return true,
            }
        }
    }

    fn cycle(&mut self, i: usize) -> Result<(), ()> {
        let t = self.scratch(i, None).ok_or(())?;
        let tl = name(&t.name);
        let ty = self.jobs[i].ty;
        self.ans.mov_typed(&tl, &self.jobs[i].dst, ty);
        if self.swaps_reach(t, i) {
            // T holds d1: swap it down the cycle from dk
            let mut order = Vec::new();
            let mut k = self.jobs[i].s.and_then(|s| self.writer_of(s));
            while let Some(n) = k.filter(|&n| n != i) {
                order.push(n);
                k = self.jobs[n].s.and_then(|s| self.writer_of(s));
            }
            for &n in order.iter().rev() {
                self.ans.swap_typed(&tl, &self.jobs[n].dst, self.jobs[n].ty);
                self.jobs[n].done = true;
            }
            self.ans.mov_typed(&self.jobs[i].dst, &tl, ty);
            self.jobs[i].done = true;
            return Ok(());
        }
        let mut k = i; // park d1 in T and rotate
        loop {
            let next = self.jobs[k].s.and_then(|s| self.writer_of(s));
            self.jobs[k].done = true;
            let (d, s, pd, ps, jt) = {
                let j = &self.jobs[k];
                (j.dst.clone(), j.src.clone(), j.d, j.s, j.ty)
            };
            match next {
                Some(n) if n != i && !self.jobs[n].done => {
                    self.copy(k, &d, pd, &s, ps.ok_or(())?, Some(t))?;
                    k = n;
                }
                _ => {
                    self.ans.mov_typed(&d, &tl, jt);
                    self.restore();
                    return Ok(());
                }
            }
        }
    }

    /// May place p be written from the immediate k in one mov (immediate_bits: k
    /// the sign-extension of a constant that wide)?
    fn takes_immediate(&self, p: &Place, k: i64) -> bool {
        let has = |l: &[String], k: &str| l.iter().any(|x| x == k);
        let fits = |bits: Option<i64>| match bits {
            Some(b) if (0..64).contains(&b) => b > 0 && k >= -(1i64 << (b - 1)) && k < (1i64 << (b - 1)),
            _ => true,
        };
        match p.kind {
            PlaceKind::Slot => {
                has(&self.m.immediate_to, "mem")
                    && self.m.stack[p.group.unwrap_or(0)].immediate
                    && fits(self.m.immediate_bits_mem)
            }
            PlaceKind::Register => {
                has(&self.m.immediate_to, "reg")
                    && self.m.classes[p.class.unwrap_or(0)].immediate
                    && fits(self.m.immediate_bits_reg)
            }
        }
    }

    fn immediate(&mut self, j: usize) -> Result<(), ()> {
        let (d, s, pd, ty) = {
            let o = &self.jobs[j];
            (o.dst.clone(), o.src.clone(), o.d, o.ty)
        };
        let k = if let Loc::Imm(k) = &s { *k } else { 0 };
        if self.takes_immediate(pd, k) {
            self.ans.mov_typed(&d, &s, ty);
            return Ok(());
        }
        let t = self.temps().find(|p| self.takes_immediate(p, k) && self.holds(p, pd.width, ty)).ok_or(())?;
        let tl = name(&t.name);
        self.ans.mov_typed(&tl, &s, ty);
        self.ans.mov_typed(&d, &tl, ty);
        Ok(())
    }

    fn resolve(&mut self) -> Result<(), ()> {
        let m = self.m;
        for mv in &self.req.moves {
            let parts: Vec<(Loc, Loc)> = match (&mv.dst, &mv.src) {
                (Loc::List(a), Loc::List(b)) if a.len() > 1 => {
                    a.iter().zip(b.iter()).map(|(x, y)| (name(x), name(y))).collect()
                }
                _ => vec![(mv.dst.clone(), mv.src.clone())],
            };
            for (dst, src) in parts {
                let first = |l: &Loc| match l {
                    Loc::Name(n) => m.place(n),
                    Loc::List(v) => v.first().and_then(|n| m.place(n)),
                    _ => None,
                };
                let d = first(&dst).ok_or(())?;
                let s = first(&src);
                if !matches!(src, Loc::Imm(_)) && s.is_none() {
                    return Err(());
                }
                let done = s.is_some() && dst == src;
                self.jobs.push(Job { dst, src, d, s, ty: mv.ty.as_deref(), done });
            }
        }
        let mut progress = true;
        while progress {
            // blades, in Kahn's order
            progress = false;
            for i in 0..self.jobs.len() {
                if !self.jobs[i].done && self.jobs[i].s.is_some() && !self.blocked(i) {
                    let (d, s, pd, ps) = {
                        let j = &self.jobs[i];
                        (j.dst.clone(), j.src.clone(), j.d, j.s.ok_or(())?)
                    };
                    self.copy(i, &d, pd, &s, ps, None)?;
                    self.jobs[i].done = true;
                    progress = true;
                }
            }
        }
        for i in 0..self.jobs.len() {
            if !self.jobs[i].done && self.jobs[i].s.is_some() {
                self.cycle(i)?;
            }
        }
        for i in 0..self.jobs.len() {
            if self.jobs[i].s.is_none() {
                self.immediate(i)?;
            }
        }
        Ok(())
    }
}

fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for line in Reader::new(io::stdin().lock()) {
        match line {
            Line::Malformed { id, error } => write_error(&mut out, id.as_deref(), &error)?,
            Line::Request(req) => {
                let id = req.id.as_deref();
                let m = match &req.machine_obj {
                    Some(m) => m,
                    None => {
                        write_unsupported(&mut out, id, "this example resolves requests that carry a machine object")?;
                        continue;
                    }
                };
                let mut r = Resolver { m, req: &req, jobs: Vec::new(), ans: Answer::new(id), loans: Vec::new() };
                match r.resolve() {
                    Ok(()) => r.ans.write_to(&mut out)?,
                    Err(()) => write_unsupported(&mut out, id, "this example finds no scratch register for this case")?,
                }
            }
        }
    }
    out.flush()
}

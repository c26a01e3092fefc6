//! reader_driver.rs: shows what kits/rust/verified_protocol.rs reads, for
//! the golden tests in tests/kits/test_readers.py; prints exactly the lines
//! of tests/kits/reader_driver.c (same modes, same format), so both kits are
//! held to one golden table.
#[path = "../../kits/rust/verified_protocol.rs"]
mod verified_protocol;

use std::io::{self, Write};
use verified_protocol::{
    write_error, write_unsupported, Answer, Line, Loc, Machine, MachineDesc, PlaceKind, Reader, Request,
};

/// Printable ASCII as is, a backslash as \\, every other byte as \xNN.
fn text(out: &mut Vec<u8>, s: Option<&str>) {
    let s = match s {
        None => return out.push(b'-'),
        Some(s) => s,
    };
    for &c in s.as_bytes() {
        if c == b'\\' {
            out.extend_from_slice(b"\\\\");
        } else if (0x20..0x7f).contains(&c) {
            out.push(c);
        } else {
            out.extend_from_slice(format!("\\x{:02x}", c).as_bytes());
        }
    }
}

fn loc(out: &mut Vec<u8>, l: &Loc) {
    match l {
        Loc::Reg(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Loc::Imm(k) => out.extend_from_slice(format!("{{imm {}}}", k).as_bytes()),
        Loc::Name(s) => {
            out.push(b'"');
            text(out, Some(s));
            out.push(b'"');
        }
        Loc::List(v) => {
            out.push(b'[');
            for (i, s) in v.iter().enumerate() {
                out.extend_from_slice(if i > 0 { b", \"" } else { b"\"" });
                text(out, Some(s));
                out.push(b'"');
            }
            out.push(b']');
        }
    }
}

fn dump(q: &Request) -> Vec<u8> {
    let mut o = b"ok id=".to_vec();
    text(&mut o, q.id.as_deref());
    o.extend_from_slice(b" model=");
    text(&mut o, q.model.as_deref());
    o.extend_from_slice(b" preserve=");
    text(&mut o, Some(&q.preserve));
    let regs = q.registers.map_or(-1, |n| n as i64);
    o.extend_from_slice(format!(" registers={} machine=", regs).as_bytes());
    let (preset, object) = match &q.machine {
        Some(Machine::Preset(s)) => (Some(s.as_str()), None),
        Some(Machine::Object(s)) => (None, Some(s.as_str())),
        None => (None, None),
    };
    text(&mut o, preset);
    o.extend_from_slice(b" machine_json=");
    text(&mut o, object);
    o.extend_from_slice(b" moves=[");
    for (i, m) in q.moves.iter().enumerate() {
        if i > 0 {
            o.extend_from_slice(b", ");
        }
        loc(&mut o, &m.dst);
        o.extend_from_slice(b" <- ");
        loc(&mut o, &m.src);
        if let Some(t) = &m.ty {
            o.extend_from_slice(b" : ");
            text(&mut o, Some(t));
        }
    }
    o.extend_from_slice(b"] temps=[");
    for (i, t) in q.temps.iter().enumerate() {
        if i > 0 {
            o.extend_from_slice(b", ");
        }
        loc(&mut o, t);
    }
    o.extend_from_slice(b"]\n");
    o
}

fn names(o: &mut Vec<u8>, label: &str, l: &[String]) {
    o.extend_from_slice(format!(" {}=", label).as_bytes());
    for (i, s) in l.iter().enumerate() {
        if i > 0 {
            o.push(b',');
        }
        text(o, Some(s));
    }
}

fn num(o: &mut Vec<u8>, label: &str, v: Option<i64>) {
    match v {
        None => o.extend_from_slice(format!(" {}=-", label).as_bytes()),
        Some(v) => o.extend_from_slice(format!(" {}={}", label, v).as_bytes()),
    }
}

fn b(x: bool) -> u8 {
    x as u8
}

/// The machine mode: the lines reader_driver.c prints from the C structs.
fn machine(q: &Request) -> Vec<u8> {
    let m: &MachineDesc = match &q.machine_obj {
        None => return b"no machine object\n".to_vec(),
        Some(m) => m,
    };
    let mut o = b"machine name=".to_vec();
    text(&mut o, Some(&m.name));
    names(&mut o, "swap", &m.swap);
    o.extend_from_slice(format!(" mem_to_mem={}", b(m.mem_to_mem)).as_bytes());
    names(&mut o, "immediate_to", &m.immediate_to);
    let c = &m.cost;
    o.extend_from_slice(
        format!(" cross_class={} cost={},{},{},{},{}", b(m.cross_class), c.mov, c.load, c.store, c.swap, c.imm)
            .as_bytes(),
    );
    num(&mut o, "unit_bits", m.unit_bits);
    num(&mut o, "immediate_bits_reg", m.immediate_bits_reg);
    num(&mut o, "immediate_bits_mem", m.immediate_bits_mem);
    names(&mut o, "reserved", &m.reserved);
    names(&mut o, "scratch", &m.scratch);
    o.extend_from_slice(format!(" units={} source=", m.unit_names.len()).as_bytes());
    text(&mut o, Some(&m.source));
    o.push(b'\n');
    for c in &m.classes {
        o.extend_from_slice(b"class ");
        text(&mut o, Some(&c.name));
        o.extend_from_slice(format!(" width={} immediate={}", c.width, b(c.immediate)).as_bytes());
        names(&mut o, "swap", &c.swap);
        names(&mut o, "registers", &c.registers);
        o.push(b'\n');
    }
    for (i, g) in m.stack.iter().enumerate() {
        o.extend_from_slice(format!("group {} width={} immediate={}", i, g.width, b(g.immediate)).as_bytes());
        names(&mut o, "slots", &g.slots);
        o.push(b'\n');
    }
    for a in &m.aliases {
        o.extend_from_slice(b"alias ");
        text(&mut o, Some(&a.name));
        names(&mut o, "parts", &a.parts);
        o.push(b'\n');
    }
    for t in &m.types {
        o.extend_from_slice(b"type ");
        text(&mut o, Some(&t.name));
        o.extend_from_slice(format!(" width={} stack={}", t.width, b(t.stack)).as_bytes());
        names(&mut o, "classes", &t.classes);
        let found = m.ty(&t.name).map_or(false, |x| std::ptr::eq(x, t));
        o.extend_from_slice(format!(" found={}\n", b(found)).as_bytes());
    }
    for p in &m.pair_moves {
        o.extend_from_slice(b"pair ");
        text(&mut o, Some(&p.pair));
        o.extend_from_slice(b" with=");
        text(&mut o, Some(&p.with));
        o.push(b'\n');
    }
    for p in &m.places {
        o.extend_from_slice(b"place ");
        text(&mut o, Some(&p.name));
        let kind = if p.kind == PlaceKind::Register { "reg" } else { "mem" };
        let idx = |x: Option<usize>| x.map_or(-1, |i| i as i64);
        let found = m.place(&p.name).map_or(false, |x| std::ptr::eq(x, p));
        o.extend_from_slice(
            format!(" {} cls={} group={} width={} found={} units=", kind, idx(p.class), idx(p.group), p.width, b(found))
                .as_bytes(),
        );
        for (j, u) in p.units.iter().enumerate() {
            if j > 0 {
                o.push(b',');
            }
            text(&mut o, Some(&m.unit_names[*u]));
        }
        o.push(b'\n');
    }
    for mv in &q.moves {
        o.extend_from_slice(b"move ");
        loc(&mut o, &mv.dst);
        o.extend_from_slice(b" <- ");
        loc(&mut o, &mv.src);
        o.extend_from_slice(b" type=");
        text(&mut o, mv.ty.as_deref());
        let known = mv.ty.as_deref().map_or(true, |t| m.ty(t).is_some());
        o.extend_from_slice(format!(" known={} overlap={}\n", b(known), b(m.overlap(&mv.dst, &mv.src))).as_bytes());
    }
    o.extend_from_slice(b"end\n");
    o
}

fn answer<W: Write>(out: &mut W, q: &Request) -> io::Result<()> {
    let mut a = Answer::new(q.id.as_deref());
    for m in &q.moves {
        a.mov(&m.dst, &m.src);
    }
    if q.model.as_deref() == Some("decline") {
        return write_unsupported(out, q.id.as_deref(), &q.preserve);
    }
    for t in &q.temps {
        a.swap(t, t);
    }
    for m in q.moves.iter().filter(|m| m.ty.is_some()) {
        a.mov_typed(&m.dst, &m.src, m.ty.as_deref());
        a.swap_typed(&m.dst, &m.src, m.ty.as_deref());
    }
    if let Some(m) = q.moves.first() {
        a.perm(&q.moves);
        a.load(&m.dst, &m.src);
        a.store(&m.dst, &m.src);
    }
    a.write_to(out)
}

fn main() -> io::Result<()> {
    let answering = std::env::args().nth(1).as_deref() == Some("answer");
    let machines = std::env::args().nth(1).as_deref() == Some("machine");
    let mut out = io::stdout().lock();
    for line in Reader::new(io::stdin().lock()) {
        match line {
            Line::Malformed { id, error } if answering => write_error(&mut out, id.as_deref(), &error)?,
            Line::Request(q) if answering => answer(&mut out, &q)?,
            Line::Malformed { id, error } => {
                let mut o = b"error id=".to_vec();
                text(&mut o, id.as_deref());
                o.push(b' ');
                text(&mut o, Some(&error));
                o.push(b'\n');
                out.write_all(&o)?;
            }
            Line::Request(q) if machines => out.write_all(&machine(&q))?,
            Line::Request(q) => out.write_all(&dump(&q))?,
        }
        out.flush()?;
    }
    Ok(())
}

//! reader_driver.rs: shows what kits/rust/verified_protocol.rs reads, for
//! the golden tests in tests/kits/test_readers.py; prints exactly the lines
//! of tests/kits/reader_driver.c (same modes, same format), so both kits are
//! held to one golden table.
#[path = "../../kits/rust/verified_protocol.rs"]
mod verified_protocol;

use std::io::{self, Write};
use verified_protocol::{write_error, write_unsupported, Answer, Line, Loc, Machine, Reader, Request};

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
            Line::Request(q) => out.write_all(&dump(&q))?,
        }
        out.flush()?;
    }
    Ok(())
}

//! The client side of verified's JSON-lines protocol (docs/protocol.md) in
//! one std-only Rust file, so that an adapter from a compiler's
//! parallel-move resolver to `verified conform` is a page of code.  Every
//! message has a JSON Schema (draft 2020-12; `verified schema NAME` prints
//! one, docs/schemas.md lists them): validate what you send and receive with
//! your own tools.
//!
//! Put this file next to your adapter and write `mod verified_protocol;`
//! (or `#[path = "..."] mod verified_protocol;`); no crates, no cargo:
//!
//! ```text
//! rustc --edition 2021 -O kits/rust/example_resolver.rs -o example_resolver
//! ```
//!
//! The adapter loop:
//!
//! ```text
//! let mut out = std::io::stdout().lock();
//! for line in Reader::new(std::io::stdin().lock()) {
//!     match line {
//!         Line::Malformed { id, error } => write_error(&mut out, id.as_deref(), &error)?,
//!         Line::Request(req) => {
//!             let mut a = Answer::new(req.id.as_deref());
//!             for m in &req.moves { a.mov(&m.dst, &m.src); }   // not a real resolver
//!             a.write_to(&mut out)?;                            // one line, flushed
//!         }
//!     }
//! }
//! ```
//!
//! What the reader accepts (one request per line; a line of only whitespace
//! is skipped and gets no answer):
//!   "moves"     [[dst, src], ...]         required
//!   "model"     string                    required unless "machine" is given
//!   "temps"     [loc, ...]                default []
//!   "registers" integer >= 0 or null
//!   "preserve"  string                    default "all"
//!   "machine"   a preset name (string), or an object: parsed into a
//!               MachineDesc (`machine_obj`) and kept as raw JSON text
//!               (`Machine::Object`); see "the machine" below
//!   "id"        any JSON value, kept as raw text and echoed first in answers
//!   anything else (e.g. "sequence") is checked to be valid JSON and skipped.
//! A location is a register number (3 = r3, 0..2147483647), a name ("rax",
//! "m0", "r3"), a non-empty list of names (["a0", "a1"]), and as a move
//! source only an immediate {"imm": k}, k an i64.  A move may carry a
//! third element, its value's type: [dst, src, "f64"] (`Move::ty`).
//!
//! The machine object (docs/machines.md) is read into a `MachineDesc`:
//! classes, aliases, stack groups, swaps, immediates, costs, and the
//! round-3 fields (unit_bits, types, immediate_bits, pair_moves, reserved,
//! scratch), each optional; every register and slot becomes a `Place` with
//! its units.  Fields this reader does not know are skipped, as in a
//! request.  Checks and messages are the C kit's (one golden table).
//!
//! Every line must be strict JSON (RFC 8259): no NaN, no trailing commas,
//! valid UTF-8, no lone surrogate escapes, no \u0000 in a decoded string
//! (the C kit cannot hold one; both kits answer the same).  Values nest at
//! most MAX_DEPTH arrays/objects deep, the request object included (nothing
//! recurses).  Lines and arrays have no length limit.  A line that breaks a
//! rule is a `Line::Malformed` with a message naming the line and what to
//! fix; iteration goes on with the next line.  The messages are the C
//! kit's, byte for byte (tests/kits pins both against one golden table).
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::io::{self, BufRead, Write};

pub const MAX_DEPTH: usize = 64;
const MAX_REGISTER: i64 = 2147483647;

/// A location, kept in the form it came in so answers write it back so.
#[derive(Clone, Debug)]
pub enum Loc {
    Reg(u32),
    Name(String),
    List(Vec<String>),
    Imm(i64),
}

/// `Reg(3)` and `Name("r3")` are the same location (equal, same hash);
/// lists are equal element by element.  Overlap (a list sharing a register
/// with a name, aliases) is the caller's business.
#[derive(PartialEq, Eq, Hash)]
enum Key<'a> {
    Reg(u32),
    Name(&'a str),
    List(&'a [String]),
    Imm(i64),
}

fn register_name(s: &str) -> Option<u32> {
    let digits = s.strip_prefix('r')?;
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    let n: u64 = if ok && digits.len() <= 10 { digits.parse().ok()? } else { return None };
    if n <= MAX_REGISTER as u64 { Some(n as u32) } else { None }
}

impl Loc {
    fn key(&self) -> Key<'_> {
        match self {
            Loc::Reg(n) => Key::Reg(*n),
            Loc::Name(s) => register_name(s).map_or(Key::Name(s), Key::Reg),
            Loc::List(v) => Key::List(v),
            Loc::Imm(k) => Key::Imm(*k),
        }
    }
}

impl PartialEq for Loc {
    fn eq(&self, other: &Loc) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Loc {}
impl Hash for Loc {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.key().hash(h)
    }
}

#[derive(Clone, Debug)]
pub struct Move {
    pub dst: Loc,
    pub src: Loc,
    /// A typed move [dst, src, TYPE]: the type's name.
    pub ty: Option<String>,
}

#[derive(Clone, Debug)]
pub enum Machine {
    /// A preset name such as "x86-64".
    Preset(String),
    /// The raw JSON text of a machine object.
    Object(String),
}

#[derive(Clone, Debug)]
pub struct Request {
    /// "temp", "swap", "permi", "spill", ...; None when absent.
    pub model: Option<String>,
    /// "all" (the default) or "loops".
    pub preserve: String,
    /// The register file r0..r{n-1}, when declared.
    pub registers: Option<u32>,
    pub moves: Vec<Move>,
    pub temps: Vec<Loc>,
    pub machine: Option<Machine>,
    /// The machine object, parsed (None for a preset name or no machine).
    pub machine_obj: Option<MachineDesc>,
    /// The raw JSON text of "id", to echo.
    pub id: Option<String>,
}

#[derive(Clone, Debug)]
pub enum Line {
    Request(Request),
    /// Not a valid request: answer `write_error(out, id, &error)`.  `id` is
    /// the line's "id" when the line was JSON.
    Malformed { id: Option<String>, error: String },
}

/// Requests, one per line of `input`; ends at end of input (or a read error).
pub struct Reader<R> {
    input: R,
    line: Vec<u8>,
    lineno: u64,
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R) -> Self {
        Reader { input, line: Vec::new(), lineno: 0 }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        loop {
            self.line.clear();
            match self.input.read_until(b'\n', &mut self.line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            self.lineno += 1;
            if self.line.last() == Some(&b'\n') {
                self.line.pop();
            }
            if !self.line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                break; // a blank line gets no answer
            }
        }
        let mut p = Parser { s: &self.line, pos: 0, lineno: self.lineno, req: empty_request(), sem: None };
        Some(match p.parse() {
            Ok(()) => Line::Request(p.req),
            Err(Fail::Syntax(error)) => Line::Malformed { id: None, error },
            Err(Fail::Request(error)) => Line::Malformed { id: p.req.id, error },
        })
    }
}

fn empty_request() -> Request {
    Request {
        model: None,
        preserve: "all".to_string(),
        registers: None,
        moves: Vec::new(),
        temps: Vec::new(),
        machine: None,
        machine_obj: None,
        id: None,
    }
}

enum Fail {
    Syntax(String),  // not JSON, or not an object: no id to echo
    Request(String), // JSON, but not a valid request
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Dst,
    Src,
    Temp,
}

const FIELDS: [&str; 7] = ["moves", "model", "temps", "registers", "preserve", "machine", "id"];

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    lineno: u64,
    req: Request,
    sem: Option<String>, // the first reason the JSON line is not a valid request
}

type R<T> = Result<T, String>;

/// Length of the valid UTF-8 sequence at the start of s (1 for ASCII), 0 if invalid.
fn utf8_len(s: &[u8]) -> usize {
    let c = s[0];
    let (len, lo, hi) = match c {
        0x00..=0x7F => return 1,
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xED => (3, 0x80, 0x9F), // no UTF-16 surrogates
        0xE1..=0xEF => (3, 0x80, 0xBF),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return 0,
    };
    if s.len() < len || s[1] < lo || s[1] > hi || s[2..len].iter().any(|&b| !(0x80..=0xBF).contains(&b)) {
        return 0;
    }
    len
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.s.get(i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    fn fail(&self, what: impl std::fmt::Display) -> String {
        format!("line {}: {}", self.lineno, what)
    }

    fn syntax(&self, what: &str) -> String {
        let end = if self.pos >= self.s.len() { " (end of line)" } else { "" };
        self.fail(format_args!("invalid JSON at byte {}{}: {}", self.pos + 1, end, what))
    }

    fn no_value(&self) -> String {
        let p = self.pos + (self.peek() == Some(b'-')) as usize;
        match self.at(p) {
            Some(b'N' | b'I') => self.syntax("NaN and Infinity are not JSON values"),
            _ => self.syntax("expected a value"),
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> R<()> {
        self.ws();
        if self.peek() != Some(c) {
            return Err(self.syntax(what));
        }
        self.pos += 1;
        Ok(())
    }

    fn clip(&self, from: usize, to: usize) -> String {
        let n = to - from;
        let text = String::from_utf8_lossy(&self.s[from..from + n.min(40)]);
        if n > 40 { format!("{}... ({} bytes)", text, n) } else { text.into_owned() }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.s.get(at..at + 4)?;
        digits.iter().try_fold(0u32, |v, &c| Some(v * 16 + (c as char).to_digit(16)?))
    }

    /// A string at pos (the opening quote), decoded when `decode`.
    fn string(&mut self, decode: bool) -> R<String> {
        if self.peek() != Some(b'"') {
            return Err(self.syntax("expected a string"));
        }
        let mut d: Vec<u8> = Vec::new();
        let mut i = self.pos + 1;
        loop {
            let c = match self.at(i) {
                None => {
                    self.pos = i;
                    return Err(self.syntax("unterminated string"));
                }
                Some(c) => c,
            };
            if c == b'"' {
                break;
            }
            if c < 0x20 {
                self.pos = i;
                return Err(self.syntax("control character in a string (write it as \\n, \\t or \\u00XX)"));
            }
            if c == b'\\' {
                let e = self.at(i + 1);
                let simple = match e {
                    Some(b'"') => Some(b'"'),
                    Some(b'\\') => Some(b'\\'),
                    Some(b'/') => Some(b'/'),
                    Some(b'b') => Some(8),
                    Some(b'f') => Some(12),
                    Some(b'n') => Some(b'\n'),
                    Some(b'r') => Some(b'\r'),
                    Some(b't') => Some(b'\t'),
                    _ => None,
                };
                if let Some(b) = simple {
                    d.push(b);
                    i += 2;
                    continue;
                }
                self.pos = i;
                if e != Some(b'u') {
                    return Err(self.syntax("invalid escape in a string"));
                }
                let mut u = match self.hex4(i + 2) {
                    Some(u) => u,
                    None => return Err(self.syntax("\\u needs four hex digits")),
                };
                i += 6;
                if (0xDC00..=0xDFFF).contains(&u) {
                    return Err(self.syntax("lone low surrogate \\uDC00..\\uDFFF"));
                }
                if (0xD800..=0xDBFF).contains(&u) {
                    let lo = match (self.at(i), self.at(i + 1), self.hex4(i + 2)) {
                        (Some(b'\\'), Some(b'u'), Some(lo)) if (0xDC00..=0xDFFF).contains(&lo) => lo,
                        _ => {
                            return Err(self.syntax(
                                "high surrogate not followed by a low surrogate \\uDC00..\\uDFFF",
                            ))
                        }
                    };
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
                let ch = char::from_u32(u).unwrap_or('\u{FFFD}'); // always a scalar value here
                let mut buf = [0u8; 4];
                d.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            let k = utf8_len(&self.s[i..]);
            if k == 0 {
                self.pos = i;
                return Err(self.syntax("invalid UTF-8 in a string"));
            }
            if decode {
                d.extend_from_slice(&self.s[i..i + k]);
            }
            i += k;
        }
        self.pos = i + 1;
        // every byte pushed was checked UTF-8 or encoded from a char
        Ok(String::from_utf8(d).unwrap_or_default())
    }

    /// A number at pos (JSON grammar); Ok(true) for an integer (no fraction, no exponent).
    fn number(&mut self) -> R<bool> {
        let digit = |p: &Self, k: usize| p.at(k).map_or(false, |c| c.is_ascii_digit());
        let mut p = self.pos;
        let mut is_int = true;
        if self.at(p) == Some(b'-') {
            p += 1;
        }
        if !digit(self, p) {
            return Err(self.no_value());
        }
        p += 1;
        if self.s[p - 1] != b'0' {
            while digit(self, p) {
                p += 1;
            }
        }
        if self.at(p) == Some(b'.') {
            is_int = false;
            if !digit(self, p + 1) {
                self.pos = p;
                return Err(self.syntax("a digit must follow the decimal point"));
            }
            p += 1;
            while digit(self, p) {
                p += 1;
            }
        }
        if matches!(self.at(p), Some(b'e' | b'E')) {
            is_int = false;
            p += 1;
            if matches!(self.at(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if !digit(self, p) {
                self.pos = p;
                return Err(self.syntax("a digit must follow the exponent"));
            }
            while digit(self, p) {
                p += 1;
            }
        }
        self.pos = p;
        Ok(is_int)
    }

    /// An integer in min..=max at pos; `what` names it in messages.
    fn integer(&mut self, min: i64, max: i64, what: &str) -> R<i64> {
        let start = self.pos;
        if !self.number()? {
            return Err(self.fail(format_args!("{} must be an integer, not {}", what, self.clip(start, self.pos))));
        }
        let text = &self.s[start..self.pos];
        let (neg, digits) = if text[0] == b'-' { (true, &text[1..]) } else { (false, text) };
        let mut mag: i128 = 0;
        for &c in digits {
            mag = (mag * 10 + (c - b'0') as i128).min(1 << 70);
        }
        let v = if neg { -mag } else { mag };
        if v < min as i128 || v > max as i128 {
            return Err(self.fail(format_args!(
                "{} {} is out of range {}..{}",
                what,
                self.clip(start, self.pos),
                min,
                max
            )));
        }
        Ok(v as i64)
    }

    fn literal(&mut self) -> R<()> {
        for w in [&b"true"[..], b"false", b"null"] {
            if self.s[self.pos..].starts_with(w) {
                self.pos += w.len();
                return Ok(());
            }
        }
        Err(self.no_value())
    }

    /// Check any JSON value at pos and step over it, without recursion;
    /// `depth`: the arrays/objects already open around it.
    fn skip(&mut self, depth: usize) -> R<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                Some(c @ (b'{' | b'[')) => {
                    if depth + open.len() >= MAX_DEPTH {
                        return Err(self.fail(format_args!(
                            "nested deeper than {} arrays/objects (byte {})",
                            MAX_DEPTH,
                            self.pos + 1
                        )));
                    }
                    open.push(c);
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(if c == b'{' { b'}' } else { b']' }) {
                        self.pos += 1;
                        open.pop();
                    } else {
                        if c == b'{' {
                            self.string(false)?;
                            self.expect(b':', "expected ':'")?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.string(false)?;
                }
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                _ => self.literal()?,
            }
            // after a value: close what is complete, or go on to the next item
            loop {
                let top = match open.last() {
                    None => return Ok(()),
                    Some(&t) => t,
                };
                self.ws();
                if self.peek() == Some(b',') {
                    self.pos += 1;
                    if top == b'{' {
                        self.ws();
                        self.string(false)?;
                        self.expect(b':', "expected ':'")?;
                    }
                    break;
                }
                if self.peek() != Some(if top == b'{' { b'}' } else { b']' }) {
                    return Err(self.syntax(if top == b'{' { "expected ',' or '}'" } else { "expected ',' or ']'" }));
                }
                self.pos += 1;
                open.pop();
            }
        }
    }

    /// A string value; `what` names it.  \u0000 is refused (see the module doc).
    fn text(&mut self, what: &str) -> R<String> {
        if self.peek() != Some(b'"') {
            return Err(self.fail(format_args!("{} must be a string", what)));
        }
        let s = self.string(true)?;
        if s.contains('\0') {
            return Err(self.fail(format_args!("{} must not contain \\u0000", what)));
        }
        Ok(s)
    }

    fn name(&mut self, what: &str) -> R<String> {
        let s = self.text(&format!("{}: a location name", what))?;
        if s.is_empty() {
            return Err(self.fail(format_args!("{}: a location name must not be empty", what)));
        }
        Ok(s)
    }

    fn loc(&mut self, role: Role, what: &str) -> R<Loc> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let n = self.integer(0, MAX_REGISTER, &format!("{}: register number", what))?;
                Ok(Loc::Reg(n as u32))
            }
            Some(b'"') => Ok(Loc::Name(self.name(what)?)),
            Some(b'[') => {
                self.pos += 1;
                let mut names = Vec::new();
                loop {
                    self.ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.fail(format_args!(
                            "{}: a multi-register location is a non-empty list of names",
                            what
                        )));
                    }
                    names.push(self.name(what)?);
                    self.ws();
                    if self.peek() == Some(b']') {
                        break;
                    }
                    self.expect(b',', "expected ',' or ']'")?;
                }
                self.pos += 1;
                Ok(Loc::List(names))
            }
            Some(b'{') if role == Role::Src => {
                self.pos += 1;
                self.ws();
                let key_ok = self.peek() == Some(b'"')
                    && matches!(self.string(true), Ok(k) if k == "imm")
                    && self.expect(b':', "expected ':'").is_ok();
                if !key_ok {
                    return Err(self.fail(format_args!("{}: an immediate is {{\"imm\": k}}, k an integer", what)));
                }
                self.ws();
                let imm = format!("{}: immediate", what);
                if !matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
                    return Err(self.fail(format_args!("{} must be an integer", imm)));
                }
                let k = self.integer(i64::MIN, i64::MAX, &imm)?;
                self.ws();
                if self.peek() != Some(b'}') {
                    return Err(self.fail(format_args!("{}: an immediate is {{\"imm\": k}} with no other field", what)));
                }
                self.pos += 1;
                Ok(Loc::Imm(k))
            }
            Some(b'{') => Err(self.fail(format_args!("{}: an immediate {{\"imm\": k}} may only be a move's source", what))),
            _ => Err(self.fail(format_args!("{}: a location is a register number, a name, or a list of names", what))),
        }
    }

    /// [item, ...], each item parsed by `item(self, index)`.
    fn list(&mut self, field: &str, items: &str, mut item: impl FnMut(&mut Self, usize) -> R<()>) -> R<()> {
        if self.peek() != Some(b'[') {
            return Err(self.fail(format_args!("\"{}\" must be a list of {}", field, items)));
        }
        self.pos += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        let mut n = 0;
        loop {
            self.ws();
            item(self, n)?;
            self.ws();
            if self.peek() == Some(b']') {
                break;
            }
            self.expect(b',', "expected ',' or ']'")?;
            n += 1;
        }
        self.pos += 1;
        Ok(())
    }

    fn one_move(&mut self, n: usize) -> R<()> {
        let pair = |p: &Self| p.fail(format_args!("\"moves\"[{}] must be a [dst, src] pair or [dst, src, type]", n));
        if self.peek() != Some(b'[') {
            return Err(pair(self));
        }
        self.pos += 1;
        self.ws();
        let dst = self.loc(Role::Dst, &format!("\"moves\"[{}] destination", n))?;
        self.ws();
        if self.peek() != Some(b',') {
            return Err(pair(self));
        }
        self.pos += 1;
        self.ws();
        let src = self.loc(Role::Src, &format!("\"moves\"[{}] source", n))?;
        self.ws();
        let mut ty = None;
        if self.peek() == Some(b',') {
            // a typed move [dst, src, TYPE]
            self.pos += 1;
            self.ws();
            let what = format!("\"moves\"[{}] type", n);
            if self.peek() != Some(b'"') {
                return Err(self.fail(format_args!("{} must be a type name (a string)", what)));
            }
            let t = self.text(&what)?;
            if t.is_empty() {
                return Err(self.fail(format_args!("{} must not be empty", what)));
            }
            ty = Some(t);
            self.ws();
        }
        if self.peek() != Some(b']') {
            return Err(pair(self));
        }
        self.pos += 1;
        self.req.moves.push(Move { dst, src, ty });
        Ok(())
    }

    fn raw(&self, from: usize) -> String {
        // a checked JSON value: valid UTF-8
        String::from_utf8_lossy(&self.s[from..self.pos]).into_owned()
    }

    fn null(&mut self) -> bool {
        if self.s[self.pos..].starts_with(b"null") {
            self.pos += 4;
            return true;
        }
        false
    }

    /// One known field's value at pos.
    fn field(&mut self, f: usize) -> R<()> {
        let start = self.pos;
        let c = self.peek();
        match FIELDS[f] {
            "moves" => self.list("moves", "[dst, src] pairs", |p, n| p.one_move(n)),
            "temps" => self.list("temps", "locations", |p, n| {
                let t = p.loc(Role::Temp, &format!("\"temps\"[{}]", n))?;
                p.req.temps.push(t);
                Ok(())
            }),
            "model" => {
                if c != Some(b'"') {
                    return Err(self.fail("\"model\" must be a string: temp, swap, permi or spill"));
                }
                self.req.model = Some(self.text("\"model\"")?);
                Ok(())
            }
            "preserve" => {
                if c != Some(b'"') {
                    return Err(self.fail("\"preserve\" must be a string: \"all\" or \"loops\""));
                }
                self.req.preserve = self.text("\"preserve\"")?;
                Ok(())
            }
            "registers" => {
                if self.null() {
                    return Ok(());
                }
                if !matches!(c, Some(b'-' | b'0'..=b'9')) {
                    return Err(self.fail("\"registers\" must be an integer n >= 0 (the registers r0..r{n-1})"));
                }
                self.req.registers = Some(self.integer(0, MAX_REGISTER, "\"registers\"")? as u32);
                Ok(())
            }
            "machine" => {
                if self.null() {
                    return Ok(());
                }
                if c == Some(b'"') {
                    self.req.machine = Some(Machine::Preset(self.text("\"machine\"")?));
                    return Ok(());
                }
                if c != Some(b'{') {
                    return Err(self.fail("\"machine\" must be a preset name (a string) or an object"));
                }
                self.skip(1)?;
                let end = self.pos;
                self.req.machine = Some(Machine::Object(self.raw(start)));
                self.pos = start;
                let m = self.machine();
                self.pos = end;
                self.req.machine_obj = Some(m?);
                Ok(())
            }
            _ => {
                self.skip(1)?;
                self.req.id = Some(self.raw(start));
                Ok(())
            }
        }
    }

    fn semantic(&mut self, why: String) {
        if self.sem.is_none() {
            self.sem = Some(why);
        }
    }

    fn parse(&mut self) -> Result<(), Fail> {
        self.parse_object().map_err(Fail::Syntax)?;
        if let Some(why) = self.sem.take() {
            return Err(Fail::Request(why));
        }
        Ok(())
    }

    /// Err: not JSON (or not an object); Ok with self.sem set: not a valid request.
    fn parse_object(&mut self) -> R<()> {
        let mut seen = [false; 7];
        self.ws();
        if self.peek() != Some(b'{') {
            self.skip(0)?;
            self.ws();
            if self.pos != self.s.len() {
                return Err(self.syntax("text after the JSON value"));
            }
            return Err(self.fail("a request is a JSON object {\"moves\": ..., \"model\": ...}"));
        }
        self.pos += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                self.ws();
                if self.peek() != Some(b'"') {
                    return Err(self.syntax("expected a field name in double quotes"));
                }
                let key = self.string(true)?;
                self.expect(b':', "expected ':'")?;
                self.ws();
                let start = self.pos;
                match FIELDS.iter().position(|&f| f == key) {
                    None => self.skip(1)?, // unknown: must be JSON, is skipped
                    Some(f) if seen[f] => {
                        self.skip(1)?;
                        let why = self.fail(format_args!("field \"{}\" appears twice", FIELDS[f]));
                        self.semantic(why);
                    }
                    Some(f) => {
                        seen[f] = true;
                        if let Err(why) = self.field(f) {
                            // wrong value: step over it again to tell bad JSON
                            // (which wins) from a bad request
                            self.pos = start;
                            self.skip(1)?;
                            self.semantic(why);
                        }
                    }
                }
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    break;
                }
                if self.peek() != Some(b',') {
                    return Err(self.syntax("expected ',' or '}'"));
                }
                self.pos += 1;
            }
        }
        self.ws();
        if self.pos != self.s.len() {
            return Err(self.syntax("text after the request object"));
        }
        if !seen[0] {
            let why = self.fail("missing \"moves\": a list of [dst, src] pairs");
            self.semantic(why);
        } else if self.req.model.is_none() && self.req.machine.is_none() {
            let why = self.fail("missing \"model\": temp, swap, permi or spill (or a \"machine\")");
            self.semantic(why);
        }
        Ok(())
    }
}

// ---- the machine object -----------------------------------------------------

/// A register class.  `swap` is the class's own "swap" when given, else the
/// machine's.
#[derive(Clone, Debug)]
pub struct Class {
    pub name: String,
    pub registers: Vec<String>,
    pub width: u32,
    pub swap: Vec<String>,
    pub immediate: bool,
}

/// A stack slot group.
#[derive(Clone, Debug)]
pub struct Group {
    pub slots: Vec<String>,
    pub width: u32,
    pub immediate: bool,
}

/// A register that IS its parts' concatenation.
#[derive(Clone, Debug)]
pub struct Alias {
    pub name: String,
    pub parts: Vec<String>,
}

/// Round 3: an entry of "types".
#[derive(Clone, Debug)]
pub struct Type {
    pub name: String,
    pub width: u32,
    pub classes: Vec<String>,
    pub stack: bool,
}

/// Round 3: an entry of "pair_moves".
#[derive(Clone, Debug)]
pub struct PairMove {
    pub pair: String,
    pub with: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceKind {
    Register,
    Slot,
}

/// A register or slot with its units (numbered over the machine; an
/// aliased register has its parts' units, so two places overlap exactly
/// when they share one).
#[derive(Clone, Debug)]
pub struct Place {
    pub name: String,
    pub kind: PlaceKind,
    pub class: Option<usize>,
    pub group: Option<usize>,
    pub width: u32,
    pub units: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Cost {
    pub mov: i64,
    pub load: i64,
    pub store: i64,
    pub swap: i64,
    pub imm: i64,
}

/// The machine object a request carries (docs/machines.md), parsed.
#[derive(Clone, Debug)]
pub struct MachineDesc {
    pub name: String,
    pub source: String,
    pub classes: Vec<Class>,
    pub aliases: Vec<Alias>,
    pub stack: Vec<Group>,
    pub swap: Vec<String>,
    pub mem_to_mem: bool,
    pub cross_class: bool,
    pub immediate_to: Vec<String>,
    pub cost: Cost,
    // round 3, each absent-tolerant
    pub unit_bits: Option<i64>,
    pub types: Vec<Type>,
    pub immediate_bits_reg: Option<i64>,
    pub immediate_bits_mem: Option<i64>,
    pub pair_moves: Vec<PairMove>,
    pub reserved: Vec<String>,
    pub scratch: Vec<String>,
    // derived
    pub places: Vec<Place>,
    pub unit_names: Vec<String>,
    by_name: HashMap<String, usize>,
}

impl MachineDesc {
    /// The register or slot called `name`.
    pub fn place(&self, name: &str) -> Option<&Place> {
        self.by_name.get(name).map(|&i| &self.places[i])
    }

    /// The type called `name`.
    pub fn ty(&self, name: &str) -> Option<&Type> {
        self.types.iter().find(|t| t.name == name)
    }

    /// The units of a location (a name or a list of names; none for an
    /// immediate, a register number or a name not on the machine).
    pub fn units(&self, l: &Loc) -> Vec<usize> {
        let names: Vec<&str> = match l {
            Loc::Name(s) => vec![s.as_str()],
            Loc::List(v) => v.iter().map(|s| s.as_str()).collect(),
            _ => vec![],
        };
        names.iter().filter_map(|n| self.place(n)).flat_map(|p| p.units.iter().copied()).collect()
    }

    /// Do two locations share a unit?
    pub fn overlap(&self, a: &Loc, b: &Loc) -> bool {
        let ua = self.units(a);
        self.units(b).iter().any(|u| ua.contains(u))
    }
}

/// A JSON value of the machine object (read without recursion).
enum Json {
    Obj(Vec<(String, Json)>),
    Arr(Vec<Json>),
    Str(String),
    Num(usize), // where it starts in the line
    Bool(bool),
    Null,
}

fn clip60(s: &str) -> &str {
    let mut n = s.len().min(60);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

impl<'a> Parser<'a> {
    /// The value at pos (already checked by skip) as a tree.
    fn tree(&mut self) -> R<Json> {
        // (container, pending key) per open level
        let mut stack: Vec<(Json, Option<String>)> = Vec::new();
        loop {
            self.ws();
            let mut node = match self.peek() {
                Some(c @ (b'{' | b'[')) => {
                    self.pos += 1;
                    self.ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    let empty = if c == b'{' { Json::Obj(Vec::new()) } else { Json::Arr(Vec::new()) };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        empty
                    } else {
                        let key = if c == b'{' {
                            let k = self.string(true)?;
                            self.expect(b':', "expected ':'")?;
                            Some(k)
                        } else {
                            None
                        };
                        stack.push((empty, key));
                        continue;
                    }
                }
                Some(b'"') => Json::Str(self.string(true)?),
                Some(b'-' | b'0'..=b'9') => {
                    let at = self.pos;
                    self.number()?;
                    Json::Num(at)
                }
                Some(b't') => {
                    self.literal()?;
                    Json::Bool(true)
                }
                Some(b'f') => {
                    self.literal()?;
                    Json::Bool(false)
                }
                _ => {
                    self.literal()?;
                    Json::Null
                }
            };
            loop {
                let (top, key) = match stack.last_mut() {
                    None => return Ok(node),
                    Some(t) => t,
                };
                match top {
                    Json::Obj(v) => v.push((key.take().unwrap_or_default(), node)),
                    Json::Arr(v) => v.push(node),
                    _ => {}
                }
                self.ws();
                if self.peek() == Some(b',') {
                    self.pos += 1;
                    if let (Json::Obj(_), k) = (&*top, key) {
                        self.ws();
                        *k = Some(self.string(true)?);
                        self.expect(b':', "expected ':'")?;
                    }
                    break;
                }
                self.pos += 1; // the closing bracket
                node = stack.pop().map(|t| t.0).unwrap_or(Json::Null);
            }
        }
    }

    fn mfail(&self, what: impl std::fmt::Display) -> String {
        self.fail(format_args!("\"machine\": {}", what))
    }

    /// Object field `key` (None when absent), refused when it appears twice.
    fn get<'j>(&self, o: &'j [(String, Json)], key: &str, what: &str) -> R<Option<&'j Json>> {
        let mut found = o.iter().filter(|(k, _)| k == key).map(|(_, v)| v);
        let first = found.next();
        if found.next().is_some() {
            return Err(self.mfail(format_args!("{}\"{}\" appears twice", what, key)));
        }
        Ok(first)
    }

    fn mint(&mut self, v: &Json, lo: i64, hi: i64, what: &str, key: &str) -> R<i64> {
        match v {
            Json::Num(at) => {
                self.pos = *at;
                self.integer(lo, hi, &format!("\"machine\": {}\"{}\"", what, key))
            }
            _ => Err(self.mfail(format_args!("{}\"{}\" must be a whole number in {}..{}", what, key, lo, hi))),
        }
    }

    fn mflag(&self, o: &[(String, Json)], key: &str, dflt: bool, what: &str) -> R<bool> {
        match self.get(o, key, what)? {
            None => Ok(dflt),
            Some(Json::Bool(b)) => Ok(*b),
            Some(_) => Err(self.mfail(format_args!("{}\"{}\" must be true or false", what, key))),
        }
    }

    fn mname(&self, v: &Json, what: &str) -> R<String> {
        match v {
            Json::Str(s) if !s.is_empty() && !s.contains('\0') => Ok(s.clone()),
            _ => Err(self.mfail(format_args!("{} must be a non-empty string without \\u0000", what))),
        }
    }

    fn mkey(&self, k: &str, what: &str) -> R<()> {
        if k.is_empty() || k.contains('\0') {
            return Err(self.mfail(format_args!("{} must be a non-empty string without \\u0000", what)));
        }
        Ok(())
    }

    fn mnames(&self, v: &Json, nonempty: bool, what: &str) -> R<Vec<String>> {
        match v {
            Json::Arr(items) if !(nonempty && items.is_empty()) => items
                .iter()
                .enumerate()
                .map(|(i, x)| self.mname(x, &format!("{}[{}]", what, i)))
                .collect(),
            _ => Err(self.mfail(format_args!(
                "{} must be a {}list of names",
                what,
                if nonempty { "non-empty " } else { "" }
            ))),
        }
    }

    fn mwidth(&mut self, o: &[(String, Json)], what: &str) -> R<u32> {
        match self.get(o, "width", what)? {
            None => Ok(1),
            Some(v) => Ok(self.mint(v, 1, 65536, what, "width")? as u32),
        }
    }

    fn mlist(&self, o: &[(String, Json)], key: &str, what: &str) -> R<Option<Vec<String>>> {
        match self.get(o, key, what)? {
            None => Ok(None),
            Some(v) => Ok(Some(self.mnames(v, false, &format!("{}\"{}\"", what, key))?)),
        }
    }

    fn mgroup(&mut self, g: &Json, what: &str, total: &mut usize) -> R<Group> {
        let w2 = format!("{}: ", what);
        let o = match g {
            Json::Obj(o) => o,
            _ => return Err(self.mfail(format_args!("{} must be an object", what))),
        };
        let slots = self.get(o, "slots", &w2)?;
        let names = self.get(o, "names", &w2)?;
        if slots.is_some() == names.is_some() {
            return Err(self.mfail(format_args!(
                "{} needs exactly one of \"slots\": N or \"names\": [...]",
                what
            )));
        }
        let width = self.mwidth(o, &w2)?;
        let immediate = self.mflag(o, "immediate", true, &w2)?;
        let list = match slots {
            Some(s) => {
                let k = self.mint(s, 0, 65536, &w2, "slots")? as usize;
                if *total + k * width as usize > 65536 {
                    return Err(self.mfail("declares more than 65536 units"));
                }
                (0..k).map(|i| format!("s{}", i)).collect()
            }
            None => self.mnames(names.unwrap_or(&Json::Null), false, &format!("{}: \"names\"", what))?,
        };
        if list.len() > 65536 || *total + list.len() * width as usize > 65536 {
            return Err(self.mfail("declares more than 65536 units"));
        }
        *total += list.len() * width as usize;
        Ok(Group { slots: list, width, immediate })
    }

    /// The machine object at pos.
    fn machine(&mut self) -> R<MachineDesc> {
        let tree = self.tree()?;
        let o = match &tree {
            Json::Obj(o) => o,
            _ => return Err(self.mfail("must be an object")),
        };
        let mut m = MachineDesc {
            name: "machine".to_string(),
            source: String::new(),
            classes: Vec::new(),
            aliases: Vec::new(),
            stack: Vec::new(),
            swap: Vec::new(),
            mem_to_mem: false,
            cross_class: false,
            immediate_to: vec!["reg".to_string()],
            cost: Cost { mov: 1, load: 1, store: 1, swap: 1, imm: 1 },
            unit_bits: None,
            types: Vec::new(),
            immediate_bits_reg: None,
            immediate_bits_mem: None,
            pair_moves: Vec::new(),
            reserved: Vec::new(),
            scratch: Vec::new(),
            places: Vec::new(),
            unit_names: Vec::new(),
            by_name: HashMap::new(),
        };
        if let Some(v) = self.get(o, "name", "")? {
            m.name = self.mname(v, "\"name\"")?;
        }
        match self.get(o, "source", "")? {
            None => {}
            Some(Json::Str(s)) => m.source = s.clone(),
            Some(_) => return Err(self.mfail("\"source\" must be a string")),
        }
        let mut own_swap: Vec<bool> = Vec::new();
        match self.get(o, "classes", "")? {
            None => {
                return Err(self.mfail("missing \"classes\": {\"NAME\": {\"registers\": [...], \"width\": W}, ...}"))
            }
            Some(Json::Obj(cs)) => {
                for (name, c) in cs {
                    self.mkey(name, "a class name")?;
                    let n60 = clip60(name);
                    let co = match c {
                        Json::Obj(co) => co,
                        _ => return Err(self.mfail(format_args!("class '{}' must be an object", n60))),
                    };
                    let what = format!("class '{}': ", n60);
                    let regs = match self.get(co, "registers", &what)? {
                        None => {
                            return Err(self.mfail(format_args!(
                                "class '{}' needs \"registers\": a list of names",
                                n60
                            )))
                        }
                        Some(v) => self.mnames(v, true, &format!("class '{}': \"registers\"", n60))?,
                    };
                    let width = self.mwidth(co, &what)?;
                    let swap = self.mlist(co, "swap", &what)?;
                    let immediate = self.mflag(co, "immediate", true, &what)?;
                    own_swap.push(swap.is_some());
                    m.classes.push(Class {
                        name: name.clone(),
                        registers: regs,
                        width,
                        swap: swap.unwrap_or_default(),
                        immediate,
                    });
                }
            }
            Some(_) => return Err(self.mfail("\"classes\" must be an object of classes")),
        }
        let mut total = 0usize;
        match self.get(o, "stack", "")? {
            None => {}
            Some(Json::Arr(gs)) => {
                for (i, g) in gs.iter().enumerate() {
                    let grp = self.mgroup(g, &format!("stack group #{}", i), &mut total)?;
                    m.stack.push(grp);
                }
            }
            Some(g @ Json::Obj(_)) => {
                let grp = self.mgroup(g, "\"stack\"", &mut total)?;
                m.stack.push(grp);
            }
            Some(_) => return Err(self.mfail("\"stack\" must be an object or a list of objects")),
        }
        match self.get(o, "aliases", "")? {
            None => {}
            Some(Json::Obj(al)) => {
                for (name, parts) in al {
                    self.mkey(name, "an alias name")?;
                    let parts = self.mnames(parts, true, &format!("alias '{}'", clip60(name)))?;
                    m.aliases.push(Alias { name: name.clone(), parts });
                }
            }
            Some(_) => return Err(self.mfail("\"aliases\" must be an object {\"d0\": [\"s0\", \"s1\"], ...}")),
        }
        if let Some(v) = self.mlist(o, "swap", "")? {
            m.swap = v;
        }
        if let Some(v) = self.mlist(o, "immediate_to", "")? {
            m.immediate_to = v;
        }
        m.mem_to_mem = self.mflag(o, "mem_to_mem", false, "")?;
        m.cross_class = self.mflag(o, "cross_class", false, "")?;
        match self.get(o, "cost", "")? {
            None => {}
            Some(Json::Obj(c)) => {
                let keys = ["mov", "load", "store", "swap", "imm"];
                let mut vals = [1i64; 5];
                for (i, k) in keys.iter().enumerate() {
                    if let Some(v) = self.get(c, k, "\"cost\": ")? {
                        vals[i] = self.mint(v, 0, 65536, "\"cost\": ", k)?;
                    }
                }
                m.cost = Cost { mov: vals[0], load: vals[1], store: vals[2], swap: vals[3], imm: vals[4] };
            }
            Some(_) => return Err(self.mfail("\"cost\" must be an object")),
        }
        if let Some(v) = self.get(o, "unit_bits", "")? {
            m.unit_bits = Some(self.mint(v, 1, 65536, "", "unit_bits")?);
        }
        match self.get(o, "immediate_bits", "")? {
            None => {}
            Some(Json::Obj(ib)) => {
                if let Some(v) = self.get(ib, "reg", "\"immediate_bits\": ")? {
                    m.immediate_bits_reg = Some(self.mint(v, 1, 65536, "\"immediate_bits\": ", "reg")?);
                }
                if let Some(v) = self.get(ib, "mem", "\"immediate_bits\": ")? {
                    m.immediate_bits_mem = Some(self.mint(v, 1, 65536, "\"immediate_bits\": ", "mem")?);
                }
            }
            Some(_) => {
                return Err(self.mfail("\"immediate_bits\" must be an object {\"reg\": BITS, \"mem\": BITS}"))
            }
        }
        match self.get(o, "types", "")? {
            None => {}
            Some(Json::Obj(ts)) => {
                for (name, t) in ts {
                    self.mkey(name, "a type name")?;
                    let n60 = clip60(name);
                    let to = match t {
                        Json::Obj(to) => to,
                        _ => return Err(self.mfail(format_args!("type '{}' must be an object", n60))),
                    };
                    let what = format!("type '{}': ", n60);
                    let classes = self.get(to, "classes", &what)?;
                    let width = self.mwidth(to, &what)?;
                    let stack = self.mflag(to, "stack", true, &what)?;
                    let classes = match classes {
                        None => Vec::new(),
                        Some(v) => self.mnames(v, false, &format!("type '{}': \"classes\"", n60))?,
                    };
                    if let Some(c) = classes.iter().find(|c| !m.classes.iter().any(|k| &k.name == *c)) {
                        return Err(self.mfail(format_args!(
                            "type '{}': '{}' is not a class of this machine",
                            n60,
                            clip60(c)
                        )));
                    }
                    m.types.push(Type { name: name.clone(), width, classes, stack });
                }
            }
            Some(_) => {
                return Err(self.mfail(
                    "\"types\" must be an object {\"f64\": {\"width\": 1, \"classes\": [...]}, ...}",
                ))
            }
        }
        match self.get(o, "pair_moves", "")? {
            None => {}
            Some(Json::Arr(ps)) => {
                for (i, p) in ps.iter().enumerate() {
                    let po = match p {
                        Json::Obj(po) => po,
                        _ => return Err(self.mfail(format_args!("pair move #{} must be an object", i))),
                    };
                    let what = format!("pair move #{}: ", i);
                    let (pair, with) = (self.get(po, "pair", &what)?, self.get(po, "with", &what)?);
                    let (pair, with) = match (pair, with) {
                        (Some(a), Some(b)) => (a, b),
                        _ => return Err(self.mfail(format_args!("pair move #{} needs \"pair\" and \"with\"", i))),
                    };
                    let pair = self.mname(pair, &format!("pair move #{}: \"pair\"", i))?;
                    let with = self.mname(with, &format!("pair move #{}: \"with\"", i))?;
                    m.pair_moves.push(PairMove { pair, with });
                }
            }
            Some(_) => {
                return Err(self.mfail(
                    "\"pair_moves\" must be a list of {\"pair\": CLASS, \"with\": CLASS or \"mem\"}",
                ))
            }
        }
        if let Some(v) = self.mlist(o, "reserved", "")? {
            m.reserved = v;
        }
        if let Some(v) = self.mlist(o, "scratch", "")? {
            m.scratch = v;
        }
        self.places(&mut m)?;
        for (c, own) in m.classes.iter_mut().zip(own_swap) {
            if !own {
                c.swap = m.swap.clone();
            }
        }
        for (label, list) in [("reserved", &m.reserved), ("scratch", &m.scratch)] {
            if let Some(n) = list.iter().find(|n| !m.by_name.contains_key(n.as_str())) {
                return Err(self.mfail(format_args!(
                    "\"{}\": '{}' is not a register or slot of this machine",
                    label,
                    clip60(n)
                )));
            }
        }
        Ok(m)
    }

    /// Places, units, aliases (as the C kit: same checks, same order).
    fn places(&mut self, m: &mut MachineDesc) -> R<()> {
        let (mut n, mut units) = (0usize, 0usize);
        for c in &m.classes {
            n += c.registers.len();
            units += c.registers.len() * c.width as usize;
            if n > 65536 || units > 65536 {
                return Err(self.mfail("declares more than 65536 units"));
            }
        }
        for g in &m.stack {
            units += g.slots.len() * g.width as usize;
        }
        if units > 65536 {
            return Err(self.mfail("declares more than 65536 units"));
        }
        for (i, c) in m.classes.iter().enumerate() {
            for r in &c.registers {
                m.places.push(Place {
                    name: r.clone(),
                    kind: PlaceKind::Register,
                    class: Some(i),
                    group: None,
                    width: c.width,
                    units: Vec::new(),
                });
            }
        }
        for (i, g) in m.stack.iter().enumerate() {
            for s in &g.slots {
                m.places.push(Place {
                    name: s.clone(),
                    kind: PlaceKind::Slot,
                    class: None,
                    group: Some(i),
                    width: g.width,
                    units: Vec::new(),
                });
            }
        }
        let mut sorted: Vec<&str> = m.places.iter().map(|p| p.name.as_str()).collect();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(self.mfail(format_args!("'{}' is declared twice", clip60(w[0]))));
        }
        m.by_name = m.places.iter().enumerate().map(|(i, p)| (p.name.clone(), i)).collect();
        let mut alias_of: Vec<Option<usize>> = vec![None; m.places.len()];
        for (i, a) in m.aliases.iter().enumerate() {
            // a register over registers, or a slot over slots (a frame)
            let p = match m.by_name.get(&a.name) {
                Some(&p) => p,
                None => {
                    return Err(self.mfail(format_args!(
                        "alias '{}' is not a register of any class",
                        clip60(&a.name)
                    )))
                }
            };
            alias_of[p] = Some(i);
            for part in &a.parts {
                if m.places[p].kind == PlaceKind::Slot
                    && !matches!(m.by_name.get(part), Some(&q) if m.places[q].kind == PlaceKind::Slot)
                {
                    return Err(self.mfail(format_args!(
                        "alias '{}' is a stack slot, so its parts are slots, but '{}' is not one",
                        clip60(&a.name),
                        clip60(part)
                    )));
                }
                if m.places[p].kind == PlaceKind::Register
                    && !matches!(m.by_name.get(part), Some(&q) if m.places[q].kind == PlaceKind::Register)
                {
                    return Err(self.mfail(format_args!(
                        "alias '{}': part '{}' is not a register of any class",
                        clip60(&a.name),
                        clip60(part)
                    )));
                }
            }
        }
        let mut state = vec![0u8; m.places.len()];
        for i in 0..m.places.len() {
            if alias_of[i].is_some() {
                continue;
            }
            let p = &mut m.places[i];
            for w in 0..p.width {
                p.units.push(m.unit_names.len());
                m.unit_names.push(if p.width == 1 { p.name.clone() } else { format!("{}.{}", p.name, w) });
            }
            state[i] = 2;
        }
        for i in 0..m.places.len() {
            if state[i] == 2 {
                continue;
            }
            let mut stk = vec![i];
            state[i] = 1;
            while let Some(&a) = stk.last() {
                let al = &m.aliases[alias_of[a].unwrap_or(0)];
                let mut pushed = false;
                for part in &al.parts {
                    let q = m.by_name[part];
                    if state[q] == 1 {
                        return Err(self.mfail(format_args!("alias '{}' contains itself", clip60(&al.name))));
                    }
                    if state[q] == 0 {
                        stk.push(q);
                        state[q] = 1;
                        pushed = true;
                        break;
                    }
                }
                if pushed {
                    continue;
                }
                let u: Vec<usize> =
                    al.parts.iter().flat_map(|part| m.places[m.by_name[part]].units.iter().copied()).collect();
                if u.len() != m.places[a].width as usize {
                    return Err(self.mfail(format_args!(
                        "alias '{}': its parts have width {} but its {} says {}",
                        clip60(&al.name),
                        u.len(),
                        if m.places[a].kind == PlaceKind::Slot { "stack group" } else { "class" },
                        m.places[a].width
                    )));
                }
                if (0..u.len()).any(|x| u[x + 1..].contains(&u[x])) {
                    return Err(self.mfail(format_args!("alias '{}': its parts overlap", clip60(&al.name))));
                }
                m.places[a].units = u;
                state[a] = 2;
                stk.pop();
            }
        }
        Ok(())
    }
}

// ---- answers ---------------------------------------------------------------

fn put_string(buf: &mut String, s: &str) {
    buf.push('"');
    for ch in s.chars() {
        match ch {
            '"' => buf.push_str("\\\""),
            '\\' => buf.push_str("\\\\"),
            '\u{8}' => buf.push_str("\\b"),
            '\u{c}' => buf.push_str("\\f"),
            '\n' => buf.push_str("\\n"),
            '\r' => buf.push_str("\\r"),
            '\t' => buf.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(buf, "\\u{:04x}", c as u32);
            }
            c => buf.push(c),
        }
    }
    buf.push('"');
}

fn put_loc(buf: &mut String, l: &Loc) {
    match l {
        Loc::Reg(n) => {
            let _ = write!(buf, "{}", n);
        }
        Loc::Imm(k) => {
            let _ = write!(buf, "{{\"imm\": {}}}", k);
        }
        Loc::Name(s) => put_string(buf, s),
        Loc::List(v) => {
            buf.push('[');
            for (i, s) in v.iter().enumerate() {
                if i > 0 {
                    buf.push_str(", ");
                }
                put_string(buf, s);
            }
            buf.push(']');
        }
    }
}

fn head(id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{{\"id\": {}, ", id),
        None => "{".to_string(),
    }
}

/// A {"sequence": [...]} answer being built; `write_to` writes it as one line.
pub struct Answer {
    buf: String,
    ops: usize,
}

impl Answer {
    /// `id`: the request's raw "id" text (`req.id.as_deref()`).
    pub fn new(id: Option<&str>) -> Answer {
        let mut buf = head(id);
        buf.push_str("\"sequence\": [");
        Answer { buf, ops: 0 }
    }

    fn op(&mut self, name: &str, a: &Loc, b: &Loc) -> &mut Answer {
        self.op_typed(name, a, b, None)
    }

    fn op_typed(&mut self, name: &str, a: &Loc, b: &Loc, ty: Option<&str>) -> &mut Answer {
        self.buf.push_str(if self.ops > 0 { ", [\"" } else { "[\"" });
        self.ops += 1;
        self.buf.push_str(name);
        self.buf.push_str("\", ");
        put_loc(&mut self.buf, a);
        self.buf.push_str(", ");
        put_loc(&mut self.buf, b);
        if let Some(t) = ty {
            self.buf.push_str(", ");
            put_string(&mut self.buf, t);
        }
        self.buf.push(']');
        self
    }

    pub fn mov(&mut self, dst: &Loc, src: &Loc) -> &mut Answer {
        self.op("mov", dst, src)
    }
    pub fn swap(&mut self, a: &Loc, b: &Loc) -> &mut Answer {
        self.op("swap", a, b)
    }
    /// ["mov", dst, src, TYPE] (None: untyped)
    pub fn mov_typed(&mut self, dst: &Loc, src: &Loc, ty: Option<&str>) -> &mut Answer {
        self.op_typed("mov", dst, src, ty)
    }
    /// ["swap", a, b, TYPE] (None: untyped)
    pub fn swap_typed(&mut self, a: &Loc, b: &Loc, ty: Option<&str>) -> &mut Answer {
        self.op_typed("swap", a, b, ty)
    }
    pub fn load(&mut self, reg: &Loc, slot: &Loc) -> &mut Answer {
        self.op("load", reg, slot)
    }
    pub fn store(&mut self, reg: &Loc, slot: &Loc) -> &mut Answer {
        self.op("store", reg, slot)
    }

    /// ["perm", [[dst, src], ...]]: a permutation of at most 5 locations.
    pub fn perm(&mut self, pairs: &[Move]) -> &mut Answer {
        self.buf.push_str(if self.ops > 0 { ", [\"perm\", [" } else { "[\"perm\", [" });
        self.ops += 1;
        for (i, m) in pairs.iter().enumerate() {
            self.buf.push_str(if i > 0 { ", [" } else { "[" });
            put_loc(&mut self.buf, &m.dst);
            self.buf.push_str(", ");
            put_loc(&mut self.buf, &m.src);
            self.buf.push(']');
        }
        self.buf.push_str("]]");
        self
    }

    /// Writes {"id": ..., "sequence": [...]} and a newline, and flushes.
    pub fn write_to<W: Write>(&self, out: &mut W) -> io::Result<()> {
        out.write_all(self.buf.as_bytes())?;
        out.write_all(b"]}\n")?;
        out.flush()
    }
}

fn write_keyed<W: Write>(out: &mut W, id: Option<&str>, key: &str, why: &str) -> io::Result<()> {
    let mut buf = head(id);
    put_string(&mut buf, key);
    buf.push_str(": ");
    put_string(&mut buf, why);
    buf.push_str("}\n");
    out.write_all(buf.as_bytes())?;
    out.flush()
}

/// {"id": ..., "unsupported": why}: the client declines this case.
pub fn write_unsupported<W: Write>(out: &mut W, id: Option<&str>, why: &str) -> io::Result<()> {
    write_keyed(out, id, "unsupported", why)
}

/// {"id": ..., "error": why}: a request the client cannot read.
pub fn write_error<W: Write>(out: &mut W, id: Option<&str>, why: &str) -> io::Result<()> {
    write_keyed(out, id, "error", why)
}

//! The client side of verified's JSON-lines protocol (docs/protocol.md) in
//! one std-only Rust file, so that an adapter from a compiler's
//! parallel-move resolver to `verified conform` is a page of code.
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
//!   "machine"   a preset name (string) or an object (kept as raw JSON text)
//!   "id"        any JSON value, kept as raw text and echoed first in answers
//!   anything else (e.g. "sequence") is checked to be valid JSON and skipped.
//! A location is a register number (3 = r3, 0..2147483647), a name ("rax",
//! "m0", "r3"), a non-empty list of names (["a0", "a1"]), and as a move
//! source only an immediate {"imm": k}, k an i64.
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
                self.req.machine = Some(Machine::Object(self.raw(start)));
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

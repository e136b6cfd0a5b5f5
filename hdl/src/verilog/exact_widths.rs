//! Every operand at the width its context computes in.
//!
//! rust-hdl prints every integer constant as a 32-bit literal (`x = 32'h0`
//! for a 9-bit `x`), selects fields with 64-bit offsets
//! (`v[(64'h400)+:(4)]`), widens by masking (`(x) & 64'hffff…`) and
//! adds a 1-bit signal to a 3-bit one. Verilog's width rules make all of
//! it right, but `verilator -Wall` reports each mismatch (thousands per
//! file), so a real one would drown. [`exact_widths`] rewrites each
//! statement of the `always @(*)` blocks so that the widths agree and the
//! value is the same:
//! - a literal takes its context's width (`9'h0`), a field offset the
//!   width of its vector's index (`v[11'h400+:4]`);
//! - a narrower signal, or a self-determined result (comparison,
//!   reduction, select, concatenation) narrower than its context, is
//!   zero-extended (`{{2{1'b0}}, go}`), all signals being unsigned;
//! - a wider signal or field in a context whose low bits depend only on
//!   its low bits (`+ - * & | ^ ~`, `<<`, the arms of `?:`) is cut to
//!   its low bits (`x[8:0]`, `v[11'h0+:9]`).
//!
//! Context widths follow IEEE 1364-2005 §5.4. A statement the pass cannot
//! size exactly (a wider operand under `>>`, a signal it has no
//! declaration of, syntax outside rust-hdl's subset) is left as it was.

use super::single_assignment::modules;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Ident(String),
    /// A literal: its width (`None`: unsized, 32 bits), its value's bits
    /// (least significant first).
    Literal(Option<u32>, Vec<bool>),
    Paren(Box<Expr>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `v[i]`.
    Index(String, Box<Expr>),
    /// `v[offset+:width]`, `v[high:low]` as offset `low`.
    Field(String, Box<Expr>, u32),
    Concat(Vec<Expr>),
    Replicate(u32, Vec<Expr>),
}

const BINARY: [(&str, u8); 19] = [
    ("||", 1),
    ("&&", 2),
    ("|", 3),
    ("^", 4),
    ("&", 5),
    ("==", 6),
    ("!=", 6),
    ("<", 7),
    ("<=", 7),
    (">", 7),
    (">=", 7),
    ("<<", 8),
    (">>", 8),
    ("<<<", 8),
    (">>>", 8),
    ("+", 9),
    ("-", 9),
    ("*", 10),
    ("/", 10),
];
const UNARY: [&str; 6] = ["~", "!", "-", "|", "&", "^"];

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Literal(Option<u32>, Vec<bool>),
    Op(&'static str),
}

fn bits_of(digits: &str, base: char) -> Option<Vec<bool>> {
    let per = match base {
        'h' | 'H' => 4,
        'b' | 'B' => 1,
        'o' | 'O' => 3,
        'd' | 'D' => {
            let v: u128 = digits.replace('_', "").parse().ok()?;
            return Some((0..128).map(|i| v >> i & 1 == 1).collect());
        }
        _ => return None,
    };
    let mut bits = Vec::new();
    for c in digits.chars().rev().filter(|&c| c != '_') {
        let d = c.to_digit(1 << per)?;
        bits.extend((0..per).map(|i| d >> i & 1 == 1));
    }
    Some(bits)
}

fn lex(text: &str) -> Option<Vec<Token>> {
    const OPS: [&str; 30] = [
        "<<<", ">>>", "+:", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "&", "|", "^", "~", "!", "<", ">", "?",
        ":", "(", ")", "[", "]", "{", "}",
    ];
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            out.push(Token::Ident(text[s..i].to_string()));
        } else if c.is_ascii_digit() || c == '\'' {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let size = &text[s..i];
            if b.get(i) == Some(&b'\'') {
                let base = *b.get(i + 1)? as char;
                i += 2;
                let d = i;
                while i < b.len() && (b[i].is_ascii_hexdigit() || b[i] == b'_') {
                    i += 1;
                }
                let width = if size.is_empty() { None } else { Some(size.parse().ok()?) };
                out.push(Token::Literal(width, bits_of(&text[d..i], base)?));
            } else {
                out.push(Token::Literal(None, bits_of(size, 'd')?));
            }
        } else if c == ',' {
            out.push(Token::Op(","));
            i += 1;
        } else {
            let op = OPS.iter().find(|op| text[i..].starts_with(**op))?;
            out.push(Token::Op(op));
            i += op.len();
        }
    }
    Some(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Token::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn eat(&mut self, op: &str) -> Option<()> {
        (self.peek_op() == Some(op)).then(|| self.at += 1)
    }

    fn constant(&mut self) -> Option<u32> {
        match self.tokens.get(self.at)? {
            Token::Literal(_, bits) => {
                self.at += 1;
                value_u32(bits)
            }
            Token::Op("(") => {
                self.at += 1;
                let v = self.constant()?;
                self.eat(")")?;
                Some(v)
            }
            _ => None,
        }
    }

    fn expr(&mut self) -> Option<Expr> {
        let cond = self.binary(1)?;
        if self.eat("?").is_some() {
            let a = self.expr()?;
            self.eat(":")?;
            let b = self.expr()?;
            return Some(Expr::Ternary(Box::new(cond), Box::new(a), Box::new(b)));
        }
        Some(cond)
    }

    fn binary(&mut self, min: u8) -> Option<Expr> {
        let mut left = self.unary()?;
        while let Some((op, prec)) = self.peek_op().and_then(|o| BINARY.iter().find(|(b, _)| *b == o)).copied() {
            if prec < min {
                break;
            }
            self.at += 1;
            let right = self.binary(prec + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<Expr> {
        if let Some(op) = self.peek_op().and_then(|o| UNARY.iter().find(|u| **u == o)) {
            self.at += 1;
            return Some(Expr::Unary(op, Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<Expr> {
        match self.tokens.get(self.at)?.clone() {
            Token::Literal(w, bits) => {
                self.at += 1;
                Some(Expr::Literal(w, bits))
            }
            Token::Ident(name) => {
                self.at += 1;
                if self.eat("[").is_none() {
                    return Some(Expr::Ident(name));
                }
                let first = self.expr()?;
                if self.eat("+:").is_some() {
                    let width = self.constant()?;
                    self.eat("]")?;
                    return Some(Expr::Field(name, Box::new(first), width));
                }
                if self.eat(":").is_some() {
                    let high = literal_u32(&first)?;
                    let low = self.constant()?;
                    self.eat("]")?;
                    return Some(Expr::Field(name, Box::new(Expr::Literal(None, u32_bits(low))), high.checked_sub(low)? + 1));
                }
                self.eat("]")?;
                Some(Expr::Index(name, Box::new(first)))
            }
            Token::Op("(") => {
                self.at += 1;
                let e = self.expr()?;
                self.eat(")")?;
                Some(Expr::Paren(Box::new(e)))
            }
            Token::Op("{") => {
                self.at += 1;
                let save = self.at;
                if let Some(n) = self.constant() {
                    if self.eat("{").is_some() {
                        let parts = self.list("}")?;
                        self.eat("}")?;
                        return Some(Expr::Replicate(n, parts));
                    }
                }
                self.at = save;
                let parts = self.list("}")?;
                Some(Expr::Concat(parts))
            }
            _ => None,
        }
    }

    /// Comma-separated expressions up to and including `close`.
    fn list(&mut self, close: &str) -> Option<Vec<Expr>> {
        let mut parts = vec![self.expr()?];
        while self.eat(",").is_some() {
            parts.push(self.expr()?);
        }
        self.eat(close)?;
        Some(parts)
    }
}

fn parse(text: &str) -> Option<Expr> {
    let mut p = Parser { tokens: lex(text)?, at: 0 };
    let e = p.expr()?;
    (p.at == p.tokens.len()).then_some(e)
}

fn value_u32(bits: &[bool]) -> Option<u32> {
    if bits.iter().skip(32).any(|&b| b) {
        return None;
    }
    Some(bits.iter().take(32).enumerate().fold(0, |v, (i, &b)| v | u32::from(b) << i))
}

fn u32_bits(v: u32) -> Vec<bool> {
    (0..32).map(|i| v >> i & 1 == 1).collect()
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(inner) => strip_parens(inner),
        _ => e,
    }
}

fn literal_u32(e: &Expr) -> Option<u32> {
    match e {
        Expr::Literal(_, bits) => value_u32(bits),
        Expr::Paren(e) => literal_u32(e),
        _ => None,
    }
}

/// Bits an index into a `width`-bit vector needs (Verilator's rule).
fn index_bits(width: u32) -> u32 {
    (32 - (width.max(2) - 1).leading_zeros()).max(1)
}

/// The widths of a module's signals.
type Widths = BTreeMap<String, u32>;

/// `e`'s self-determined width.
fn width(e: &Expr, w: &Widths) -> Option<u32> {
    Some(match e {
        Expr::Ident(n) => *w.get(n)?,
        Expr::Literal(size, _) => size.unwrap_or(32),
        Expr::Paren(e) => width(e, w)?,
        Expr::Unary("~" | "-", e) => width(e, w)?,
        Expr::Unary(..) => 1,
        Expr::Binary("+" | "-" | "*" | "/" | "&" | "|" | "^", a, b) => width(a, w)?.max(width(b, w)?),
        Expr::Binary("<<" | ">>" | "<<<" | ">>>", a, _) => width(a, w)?,
        Expr::Binary(..) => 1,
        Expr::Ternary(_, a, b) => width(a, w)?.max(width(b, w)?),
        Expr::Index(..) => 1,
        Expr::Field(_, _, width) => *width,
        Expr::Concat(parts) => parts.iter().map(|p| width(p, w)).sum::<Option<u32>>()?,
        Expr::Replicate(n, parts) => n * parts.iter().map(|p| width(p, w)).sum::<Option<u32>>()?,
    })
}

fn literal(width: u32, bits: &[bool]) -> Expr {
    Expr::Literal(Some(width), (0..width as usize).map(|i| bits.get(i).copied().unwrap_or(false)).collect())
}

/// `e` zero-extended from `from` to `to` bits (`from < to`).
fn extend(e: Expr, from: u32, to: u32) -> Expr {
    Expr::Concat(vec![Expr::Replicate(to - from, vec![literal(1, &[false])]), e])
}

/// `e` rewritten to exactly `target` bits, with the low `target` bits of
/// the value `e` has in a context of `target` bits; `None` where that
/// cannot be written exactly.
fn size(e: &Expr, target: u32, w: &Widths) -> Option<Expr> {
    let own = width(e, w)?;
    Some(match e {
        Expr::Literal(_, bits) => {
            // A value that needs more bits than the context keeps them only
            // where they are dropped anyway (the low bits are taken).
            literal(target, bits)
        }
        Expr::Paren(inner) => Expr::Paren(Box::new(size(inner, target, w)?)),
        Expr::Unary(op @ ("~" | "-"), inner) => Expr::Unary(op, Box::new(size(inner, target, w)?)),
        Expr::Binary(op @ ("+" | "-" | "*" | "&" | "|" | "^"), a, b) => {
            Expr::Binary(op, Box::new(size(a, target, w)?), Box::new(size(b, target, w)?))
        }
        Expr::Binary(">>", a, b) if width(a, w)? > target => {
            // A wider left side shifts its high bits down into view: a
            // signal or field shifted by a constant is the field above it.
            let by = literal_u32(b)?;
            let (name, base, from) = match strip_parens(a) {
                Expr::Ident(n) => (n.clone(), 0, width(a, w)?),
                Expr::Field(n, offset, from) => (n.clone(), literal_u32(offset)?, *from),
                _ => return None,
            };
            if by >= from {
                return Some(literal(target, &[]));
            }
            let take = target.min(from - by);
            let field = Expr::Field(name.clone(), Box::new(index(&name, &Expr::Literal(None, u32_bits(base + by)), w)?), take);
            if take < target {
                extend(field, take, target)
            } else {
                field
            }
        }
        Expr::Binary(op @ ("<<" | ">>"), a, b) => Expr::Binary(op, Box::new(size(a, target, w)?), Box::new(self_sized(b, w)?.0)),
        Expr::Ternary(c, a, b) => {
            Expr::Ternary(Box::new(self_sized(c, w)?.0), Box::new(size(a, target, w)?), Box::new(size(b, target, w)?))
        }
        Expr::Ident(name) if own > target => Expr::Field(name.clone(), Box::new(literal(index_bits(own), &[])), target),
        Expr::Field(name, offset, _) if own > target => Expr::Field(name.clone(), Box::new(index(name, offset, w)?), target),
        // Self-determined: sized on their own, then zero-extended.
        Expr::Ident(_)
        | Expr::Index(..)
        | Expr::Field(..)
        | Expr::Concat(_)
        | Expr::Replicate(..)
        | Expr::Unary("!" | "|" | "&" | "^", _)
        | Expr::Binary("==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||", ..) => {
            let (e, own) = self_sized(e, w)?;
            match own.cmp(&target) {
                std::cmp::Ordering::Less => extend(e, own, target),
                std::cmp::Ordering::Equal => e,
                std::cmp::Ordering::Greater => return None,
            }
        }
        // `/`, `<<<`, `>>>`: not in rust-hdl's output; left alone.
        _ => return None,
    })
}

/// The width a comparison needs for `e`: a literal's significant bits
/// (so that `k == 32'h5` for a 2-bit `k` stays false), else its width.
fn fit_width(e: &Expr, w: &Widths) -> Option<u32> {
    match e {
        Expr::Literal(_, bits) => Some(bits.iter().rposition(|&b| b).map_or(1, |i| i as u32 + 1)),
        Expr::Paren(inner) => fit_width(inner, w),
        _ => width(e, w),
    }
}

/// `e` rewritten in its own (self-determined) width, which is returned.
fn self_sized(e: &Expr, w: &Widths) -> Option<(Expr, u32)> {
    let own = width(e, w)?;
    let e = match e {
        Expr::Ident(_) | Expr::Literal(..) => e.clone(),
        Expr::Paren(inner) => Expr::Paren(Box::new(self_sized(inner, w)?.0)),
        Expr::Binary(op @ ("==" | "!=" | "<" | "<=" | ">" | ">="), a, b) => {
            let both = fit_width(a, w)?.max(fit_width(b, w)?);
            Expr::Binary(op, Box::new(size(a, both, w)?), Box::new(size(b, both, w)?))
        }
        Expr::Binary(op @ ("&&" | "||"), a, b) => Expr::Binary(op, Box::new(self_sized(a, w)?.0), Box::new(self_sized(b, w)?.0)),
        Expr::Unary(op @ ("!" | "|" | "&" | "^"), a) => Expr::Unary(op, Box::new(self_sized(a, w)?.0)),
        Expr::Index(name, i) => Expr::Index(name.clone(), Box::new(index(name, i, w)?)),
        Expr::Field(name, offset, width) => Expr::Field(name.clone(), Box::new(index(name, offset, w)?), *width),
        Expr::Concat(parts) => Expr::Concat(parts.iter().map(|p| self_sized(p, w).map(|s| s.0)).collect::<Option<_>>()?),
        Expr::Replicate(n, parts) => Expr::Replicate(*n, parts.iter().map(|p| self_sized(p, w).map(|s| s.0)).collect::<Option<_>>()?),
        // Context-determined operators at their own width.
        _ => size(e, own, w)?,
    };
    Some((e, own))
}

/// A select's index or offset into `name`: a constant at the vector's
/// index width, anything else as it is.
fn index(name: &str, i: &Expr, w: &Widths) -> Option<Expr> {
    match literal_u32(i) {
        Some(v) => {
            let bits = index_bits(*w.get(name)?);
            (u64::from(v) < 1 << bits).then(|| literal(bits, &u32_bits(v)))
        }
        None => Some(self_sized(i, w)?.0),
    }
}

fn hex(width: u32, bits: &[bool]) -> String {
    let digits = (width as usize).div_ceil(4).max(1);
    let mut s = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let v = (0..4).fold(0u32, |v, i| v | u32::from(bits.get(d * 4 + i).copied().unwrap_or(false)) << i);
        if v != 0 || !s.is_empty() || d == 0 {
            s.push(char::from_digit(v, 16).expect("a hex digit"));
        }
    }
    format!("{width}'h{s}")
}

fn print(e: &Expr) -> String {
    match e {
        Expr::Ident(n) => n.clone(),
        Expr::Literal(Some(w), bits) => hex(*w, bits),
        Expr::Literal(None, bits) => value_u32(bits).map_or_else(|| hex(32, bits), |v| v.to_string()),
        Expr::Paren(e) => format!("({})", print(e)),
        Expr::Unary(op, e) => format!("{op}{}", print(e)),
        Expr::Binary(op, a, b) => format!("{} {op} {}", print(a), print(b)),
        Expr::Ternary(c, a, b) => format!("{} ? {} : {}", print(c), print(a), print(b)),
        Expr::Index(n, i) => format!("{n}[{}]", print(i)),
        Expr::Field(n, o, w) => format!("{n}[{}+:{w}]", print(o)),
        Expr::Concat(parts) => format!("{{{}}}", parts.iter().map(print).collect::<Vec<_>>().join(", ")),
        Expr::Replicate(n, parts) => format!("{{{n}{{{}}}}}", parts.iter().map(print).collect::<Vec<_>>().join(", ")),
    }
}

/// One statement of a combinational block rewritten, or `None`.
fn statement(line: &str, w: &Widths) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let t = line.trim();
    for keyword in ["if (", "else if (", "end else if ("] {
        if let Some(cond) = t.strip_prefix(keyword).and_then(|r| r.strip_suffix(") begin")) {
            let (c, _) = self_sized(&parse(cond)?, w)?;
            return Some(format!("{indent}{keyword}{}) begin", print(&c)));
        }
    }
    let body = t.strip_suffix(';')?;
    let (lhs, rhs) = body.split_once(" = ")?;
    let target = parse(lhs)?;
    let (target, bits) = match &target {
        Expr::Ident(_) => (target.clone(), width(&target, w)?),
        Expr::Index(..) | Expr::Field(..) => self_sized(&target, w)?,
        _ => return None,
    };
    let value = size(&parse(rhs)?, bits, w)?;
    Some(format!("{indent}{} = {};", print(&target), print(&value)))
}

/// `verilog` with the statements of every `always @(*)` block written so
/// that each operand has its context's width (see the module docs).
/// Behaviour is unchanged; statements the pass cannot size stay as they were.
///
/// # Errors
/// Text without rust-hdl's module layout (see
/// [`super::repeated_crossing_assignments`]).
pub fn exact_widths(verilog: &str) -> Result<String, String> {
    let lines: Vec<&str> = verilog.lines().collect();
    let mut rewritten: BTreeMap<usize, String> = BTreeMap::new();
    for m in modules(&lines)? {
        // Local parameters (rust-hdl's constants) take their value's width.
        let parameters = lines[m.lines.0..m.lines.1].iter().filter_map(|l| {
            let (name, value) = l.trim().strip_prefix("localparam")?.strip_suffix(';')?.split_once('=')?;
            let name = name.trim();
            if name.starts_with('[') || name.contains(' ') {
                return None;
            }
            let value = value.trim();
            let bits = match value.split_once('\'') {
                Some((size, _)) => size.trim().parse().ok()?,
                None => 32,
            };
            Some((name.to_string(), bits))
        });
        let widths: Widths = parameters
            .chain(m.declared.iter().filter_map(|(name, (_, range))| {
                let range = range.trim();
                if range.is_empty() {
                    return Some((name.clone(), 1));
                }
                let (high, low) = range.strip_prefix('[')?.strip_suffix(']')?.split_once(':')?;
                let (high, low): (u32, u32) = (high.trim().parse().ok()?, low.trim().parse().ok()?);
                Some((name.clone(), high.checked_sub(low)? + 1))
            }))
            .collect();
        // The combinational block, and the `initial` blocks of registers.
        let mut statements: Vec<usize> = m.block.map_or(Vec::new(), |(start, end)| (start + 1..end).collect());
        let mut k = m.lines.0;
        while k < m.lines.1 {
            if lines[k].trim() == "initial begin" {
                let close = (k + 1..m.lines.1).find(|&j| lines[j].trim() == "end").unwrap_or(k);
                statements.extend(k + 1..close);
                k = close;
            }
            k += 1;
        }
        for k in statements {
            if let Some(new) = statement(lines[k], &widths) {
                rewritten.insert(k, new);
            }
        }
    }
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    for (k, line) in lines.iter().enumerate() {
        out.push_str(rewritten.get(&k).map_or(*line, String::as_str));
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widths() -> Widths {
        [("a", 9), ("b", 8), ("go", 1), ("n", 3), ("v", 1039), ("k", 2), ("wide", 64)].iter().map(|(n, w)| (n.to_string(), *w)).collect()
    }

    fn rewrite(line: &str) -> Option<String> {
        statement(line, &widths())
    }

    #[test]
    fn sizes_literals_fields_and_narrow_operands() {
        assert_eq!(rewrite("        a = 32'h0;").unwrap(), "        a = 9'h0;");
        assert_eq!(rewrite("        n = n + go;").unwrap(), "        n = n + {{2{1'h0}}, go};");
        assert_eq!(rewrite("        a = b + b;").unwrap(), "        a = {{1{1'h0}}, b} + {{1{1'h0}}, b};");
        assert_eq!(rewrite("        v[(64'h404)+:(11)] = a;").unwrap(), "        v[11'h404+:11] = {{2{1'h0}}, a};");
        assert_eq!(rewrite("        go = (k == 32'h1);").unwrap(), "        go = (k == 2'h1);");
        assert_eq!(
            rewrite("        wide = ((n) & 64'hffffffffffffffff) << 32'h5;").unwrap(),
            "        wide = (({{61{1'h0}}, n}) & 64'hffffffffffffffff) << 32'h5;"
        );
        assert_eq!(rewrite("        if ((k == 32'h3) & go) begin").unwrap(), "        if ((k == 2'h3) & go) begin");
        assert_eq!(rewrite("        else if (k != 32'h0) begin").unwrap(), "        else if (k != 2'h0) begin");
    }

    #[test]
    fn cuts_wider_operands_where_only_low_bits_count() {
        assert_eq!(rewrite("        n = a + 32'h1;").unwrap(), "        n = a[4'h0+:3] + 3'h1;");
        assert_eq!(rewrite("        n = v[(64'h10)+:(8)];").unwrap(), "        n = v[11'h10+:3];");
        // A wider operand shifted right by a constant is the field above.
        assert_eq!(rewrite("        n = ((a >> 32'h5) & 3'h7);").unwrap(), "        n = ((a[4'h5+:3]) & 3'h7);");
        assert_eq!(rewrite("        n = a >> 32'h8;").unwrap(), "        n = {{2{1'h0}}, a[4'h8+:1]};");
        assert_eq!(rewrite("        n = a >> 32'h9;").unwrap(), "        n = 3'h0;");
        // By a signal, its high bits come into view: left alone.
        assert_eq!(rewrite("        n = a >> n;"), None);
        assert_eq!(rewrite("        n = unknown;"), None);
    }

    #[test]
    fn replace_bit_idiom_and_reductions() {
        assert_eq!(
            rewrite("        n = (n & ~(1 << (0)) | ((|b) << (0)));").unwrap(),
            "        n = (n & ~(3'h1 << (0)) | (({{2{1'h0}}, |b}) << (0)));"
        );
    }

    #[test]
    fn whole_text_passes_declarations_and_other_blocks_through() {
        let v = "module top(a);\n    output reg  [8:0] a;\n    reg  go;\n    localparam  half = 32'h200000;\n    always @(*) begin\n        a = 32'h1 + go;\n        go = (a + half) >= half;\n    end\nendmodule // top\n";
        let out = exact_widths(v).unwrap();
        assert!(out.contains("        a = 9'h1 + {{8{1'h0}}, go};\n"), "{out}");
        assert!(out.contains("        go = ({{23{1'h0}}, a} + half) >= half;\n"), "{out}");
        assert_eq!(out.lines().count(), v.lines().count());
        let register = "module top__r(q,clock);\n    output reg  [3:0] q;\n    input wire  clock;\n    initial begin\n       q = 64'h0;\n    end\n    always @(posedge clock) begin\n       q <= q + 64'h1;\n    end\nendmodule // top__r\n";
        let out = exact_widths(register).unwrap();
        assert!(out.contains("       q = 4'h0;\n") && out.contains("       q <= q + 64'h1;\n"), "{out}");
    }
}

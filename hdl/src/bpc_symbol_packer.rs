//! Concatenation of the 35 BPC symbol slots of one memory-entry into its
//! stream (docs/formats.md#bpc-symbols, docs/formats.md#stream-packing): stages 3 and 4 of
//! [`crate::BpcCompressor`].
//!
//! Each slot holds a code word with its payload as one value `code` of
//! `len` bits (0..=32; 0 = empty slot) whose most significant bit is emitted
//! first. The stream is LSB-first: stream bit `j` is vector bit `C[j]`. So a
//! slot enters the stream bit-reversed, `R = reverse32(code) >> (32 - len)`,
//! at the sum of the previous lengths.
//!
//! The network is a balanced binary tree of shift-OR nodes
//! (`m = a | (b << len_a)`, `len_m = len_a + len_b`), 6 levels over 35
//! leaves, cut by a pipeline register after level 3: [`PackerLeaves`] turns
//! the 35 slots into 5 partial streams (slots 8k..8k+8), [`PackerRoot`]
//! joins them. Every node is exactly as wide as its inputs together (at
//! most 768 bits: a longer stream is stored RAW, docs/formats.md#size-classes, and only its
//! length matters then) and every length exactly as wide as its largest
//! value, so each shifter has only the stages its shift amount needs.
//! `#[hdl_gen]` cannot write widths that change per tree level, so, like
//! [`crate::delta_packing`], these blocks write their Verilog themselves
//! (`Verilog::Custom`: the tree as `wire`s) and simulate in plain Rust; both
//! sides are checked against the golden model (rust-hdl equivalence tests,
//! Icarus co-simulation).

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;

/// Symbol slots: the base prefix, the base payload, 33 planes.
pub const SLOTS: usize = 35;

/// Stream bits kept: a stream longer than 96 bytes is stored RAW.
pub const KEPT_BITS: usize = 768;

/// Partial streams between the two packing stages, and slots per partial.
pub const PARTS: usize = 5;
const SLOTS_PER_PART: usize = 8;

/// The bits of `code`'s low `len` bits, most significant first, as an
/// LSB-first value (`len` 0..=32).
pub fn stream_order(code: u32, len: u32) -> u32 {
    if len == 0 {
        0
    } else {
        code.reverse_bits() >> (32 - len)
    }
}

/// LSB-first bit buffer for the Rust side of the packers.
struct Bits1120 {
    words: [u32; 36],
    at: usize,
}

impl Bits1120 {
    fn new() -> Self {
        Bits1120 { words: [0; 36], at: 0 }
    }

    /// Append the low `len` bits of `value` (LSB-first), up to 1152 bits.
    fn push(&mut self, value: u32, len: usize) {
        if len > 0 && self.at < 36 * 32 {
            let (w, s) = (self.at / 32, self.at % 32);
            let v = (value as u64 & ((1u64 << len) - 1)) << s;
            self.words[w] |= v as u32;
            if w + 1 < 36 {
                self.words[w + 1] |= (v >> 32) as u32;
            }
        }
        self.at += len;
    }

    /// Append the first `len` bits of `words`.
    fn push_words(&mut self, words: &[u32; 32], len: usize) {
        for (i, &w) in words.iter().enumerate().take(len.div_ceil(32)) {
            self.push(w, (len - 32 * i).min(32));
        }
    }

    /// The first `keep` bits as 32 words, zero above.
    fn kept(&self, keep: usize) -> [u32; 32] {
        let mut out = [0u32; 32];
        for (i, o) in out.iter_mut().enumerate() {
            let lo = 32 * i;
            if lo < keep {
                let n = (keep - lo).min(32);
                *o = if n == 32 { self.words[i] } else { self.words[i] & ((1u32 << n) - 1) };
            }
        }
        out
    }
}

/// A value of the tree: its Verilog expression, width, length expression,
/// length width and largest length.
#[derive(Clone)]
struct Node {
    value: String,
    width: usize,
    len: String,
    len_width: usize,
    max: usize,
}

fn bits_for(max: usize) -> usize {
    (usize::BITS - max.leading_zeros()) as usize
}

fn padded(expr: &str, from: usize, to: usize) -> String {
    match from.cmp(&to) {
        std::cmp::Ordering::Less => format!("{{{}'d0, {expr}}}", to - from),
        std::cmp::Ordering::Equal => expr.to_string(),
        std::cmp::Ordering::Greater => format!("{expr}[{}:0]", to - 1),
    }
}

/// Merge `level` pairwise into `wire`s named `{tag}{depth}_{k}` until at
/// most `until` nodes are left; returns them.
fn merge(v: &mut String, mut level: Vec<Node>, tag: &str, until: usize) -> Vec<Node> {
    let mut depth = 0;
    while level.len() > until {
        depth += 1;
        let mut next = Vec::new();
        for (k, pair) in level.chunks(2).enumerate() {
            if let [a, b] = pair {
                let width = (a.width + b.width).min(KEPT_BITS);
                let max = a.max + b.max;
                let len_width = bits_for(max);
                let name = format!("{tag}{depth}_{k}");
                *v += &format!(
                    "wire [{}:0] {name} = {} | ({} << {});\nwire [{}:0] {name}_len = {} + {};\n",
                    width - 1,
                    padded(&a.value, a.width, width),
                    padded(&b.value, b.width, width),
                    a.len,
                    len_width - 1,
                    padded(&a.len, a.len_width, len_width),
                    padded(&b.len, b.len_width, len_width),
                );
                next.push(Node { value: name.clone(), width, len: format!("{name}_len"), len_width, max });
            } else {
                next.push(pair[0].clone());
            }
        }
        level = next;
    }
    level
}

/// Widths of the partial streams, `[256, 256, 256, 256, 96]`.
fn part_widths() -> [usize; PARTS] {
    std::array::from_fn(|k| 32 * (SLOTS - SLOTS_PER_PART * k).min(SLOTS_PER_PART))
}

seq_macro::seq!(N in 0..35 {
/// Stage 3: the 35 slots into 5 partial streams (tree levels 1-3).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `code0` .. `code34` | 32 each | in | slot `N`'s code word and payload, first emitted bit at bit `len - 1` |
/// | `len0` .. `len34` | 32 each | in | slot `N`'s bit count, 0..=32 (the low 6 bits are read) |
/// | `part0` .. `part4` | 1024 each | out | the stream of slots `8k .. 8k + 8`, LSB-first; bits past 256 are 0 |
/// | `part_len0` .. `part_len4` | 11 each | out | its length in bits |
///
/// Combinational. Named ports (not arrays) so that the parent can drive
/// them from `seq!` repetitions.
#[derive(LogicBlock, Default)]
pub struct PackerLeaves {
    #( pub code~N: Signal<In, Bits<32>>, )*
    #( pub len~N: Signal<In, Bits<32>>, )*
    pub part0: Signal<Out, EntryBits>,
    pub part1: Signal<Out, EntryBits>,
    pub part2: Signal<Out, EntryBits>,
    pub part3: Signal<Out, EntryBits>,
    pub part4: Signal<Out, EntryBits>,
    pub part_len0: Signal<Out, Bits<11>>,
    pub part_len1: Signal<Out, Bits<11>>,
    pub part_len2: Signal<Out, Bits<11>>,
    pub part_len3: Signal<Out, Bits<11>>,
    pub part_len4: Signal<Out, Bits<11>>,
}

impl PackerLeaves {
    fn slots(&self) -> [(u32, u32); SLOTS] {
        [ #( (self.code~N.val().to_u32(), self.len~N.val().to_u32() & 0x3F), )* ]
    }
}

impl Logic for PackerLeaves {
    fn update(&mut self) {
        let slots = self.slots();
        let mut parts = [(EntryBits::default(), 0u64); PARTS];
        for (k, part) in parts.iter_mut().enumerate() {
            let mut b = Bits1120::new();
            for &(code, len) in slots.iter().skip(SLOTS_PER_PART * k).take(SLOTS_PER_PART) {
                let len = len.min(32);
                b.push(stream_order(code, len), len as usize);
            }
            *part = (EntryBits::from_words(&b.kept(1024)), b.at as u64);
        }
        self.part0.next = parts[0].0;
        self.part1.next = parts[1].0;
        self.part2.next = parts[2].0;
        self.part3.next = parts[3].0;
        self.part4.next = parts[4].0;
        self.part_len0.next = parts[0].1.into();
        self.part_len1.next = parts[1].1.into();
        self.part_len2.next = parts[2].1.into();
        self.part_len3.next = parts[3].1.into();
        self.part_len4.next = parts[4].1.into();
    }

    fn connect(&mut self) {
        self.part0.connect();
        self.part1.connect();
        self.part2.connect();
        self.part3.connect();
        self.part4.connect();
        self.part_len0.connect();
        self.part_len1.connect();
        self.part_len2.connect();
        self.part_len3.connect();
        self.part_len4.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(leaves_verilog())
    }
}
});

/// The Verilog body of [`PackerLeaves`].
fn leaves_verilog() -> String {
    let mut v = String::from("// BPC symbol packing, levels 1-3: bit-reversed slots concatenated by a shift-OR tree.\n");
    let mut leaves = Vec::new();
    for i in 0..SLOTS {
        let rev: Vec<String> = (0..32).map(|b| format!("code{i}[{b}]")).collect();
        v += &format!("wire [31:0] leaf{i} = (len{i}[5:0] == 6'd0) ? 32'h0 : ({{{}}} >> (6'd32 - len{i}[5:0]));\n", rev.join(", "));
        leaves.push(Node { value: format!("leaf{i}"), width: 32, len: format!("len{i}[5:0]"), len_width: 6, max: 32 });
    }
    let parts = merge(&mut v, leaves, "n", PARTS);
    assert_eq!(parts.len(), PARTS);
    v += "always @(*) begin\n";
    for (k, p) in parts.iter().enumerate() {
        assert_eq!(p.width, part_widths()[k]);
        v += &format!(
            "    part{k} = 1024'h0;\n    part{k}[{}:0] = {};\n    part_len{k} = {};\n",
            p.width - 1,
            p.value,
            padded(&p.len, p.len_width, 11)
        );
    }
    v + "end\n"
}

/// Stage 4: the 5 partial streams into the stream (tree levels 4-6).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `part0` .. `part4` | 1024 each | in | [`PackerLeaves`]' partial streams |
/// | `part_len0` .. `part_len4` | 11 each | in | their lengths |
/// | `stream` | 1024 | out | the first 768 stream bits, LSB-first (`C[j]` = stream bit `j`); bits 768.. are 0 |
/// | `total` | 11 | out | the stream's length in bits (at most 35 x 32 = 1120) |
#[derive(LogicBlock, Default)]
pub struct PackerRoot {
    pub part0: Signal<In, EntryBits>,
    pub part1: Signal<In, EntryBits>,
    pub part2: Signal<In, EntryBits>,
    pub part3: Signal<In, EntryBits>,
    pub part4: Signal<In, EntryBits>,
    pub part_len0: Signal<In, Bits<11>>,
    pub part_len1: Signal<In, Bits<11>>,
    pub part_len2: Signal<In, Bits<11>>,
    pub part_len3: Signal<In, Bits<11>>,
    pub part_len4: Signal<In, Bits<11>>,
    pub stream: Signal<Out, EntryBits>,
    pub total: Signal<Out, Bits<11>>,
}

impl Logic for PackerRoot {
    fn update(&mut self) {
        let parts = [
            (self.part0.val(), self.part_len0.val()),
            (self.part1.val(), self.part_len1.val()),
            (self.part2.val(), self.part_len2.val()),
            (self.part3.val(), self.part_len3.val()),
            (self.part4.val(), self.part_len4.val()),
        ];
        let mut b = Bits1120::new();
        for (k, (part, len)) in parts.iter().enumerate() {
            let len = (len.to_u32() as usize).min(part_widths()[k]);
            b.push_words(&part.to_words(), len);
        }
        self.stream.next = EntryBits::from_words(&b.kept(KEPT_BITS));
        self.total.next = (b.at as u64).into();
    }

    fn connect(&mut self) {
        self.stream.connect();
        self.total.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(root_verilog())
    }
}

/// The Verilog body of [`PackerRoot`].
fn root_verilog() -> String {
    let mut v = String::from("// BPC symbol packing, levels 4-6: the partial streams joined by a shift-OR tree.\n");
    let parts: Vec<Node> = part_widths()
        .iter()
        .enumerate()
        .map(|(k, &w)| Node {
            value: format!("part{k}[{}:0]", w - 1),
            width: w,
            len: format!("part_len{k}[{}:0]", bits_for(w) - 1),
            len_width: bits_for(w),
            max: w,
        })
        .collect();
    let root = merge(&mut v, parts, "r", 1).remove(0);
    v + &format!(
        "always @(*) begin\n    stream = 1024'h0;\n    stream[{}:0] = {};\n    total = {};\nend\n",
        root.width - 1,
        root.value,
        padded(&root.len, root.len_width, 11)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_order_reverses_the_low_bits() {
        assert_eq!(stream_order(0b00011_01001, 10), 0b10010_11000);
        assert_eq!(stream_order(0b001, 3), 0b100);
        assert_eq!(stream_order(u32::MAX, 0), 0);
        assert_eq!(stream_order(0x8000_0001, 32), 0x8000_0001);
    }

    #[test]
    fn the_trees_cover_every_slot_once_and_end_at_768_bits() {
        let v = leaves_verilog();
        let tokens: Vec<&str> = v.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').collect();
        for i in 0..SLOTS {
            let name = format!("leaf{i}");
            assert_eq!(tokens.iter().filter(|t| **t == name).count(), 2, "leaf {i}: declared and used once:\n{v}");
        }
        for k in 0..PARTS {
            assert!(v.contains(&format!("part{k}[{}:0]", part_widths()[k] - 1)), "{v}");
        }
        assert_eq!(part_widths(), [256, 256, 256, 256, 96]);
        assert!(root_verilog().contains("stream[767:0]"), "{}", root_verilog());
    }

    #[test]
    fn bit_buffer_appends_across_words() {
        let mut b = Bits1120::new();
        b.push(0b101, 3);
        b.push(u32::MAX, 32);
        b.push(1, 1);
        assert_eq!(b.at, 36);
        assert_eq!(b.words[0], 0b101 | (u32::MAX << 3));
        assert_eq!(b.words[1], 0b111 | (1 << 3));
        let k = b.kept(34);
        assert_eq!(k[1], 0b11);
    }
}

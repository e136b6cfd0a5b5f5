//! Concatenation of the 35 BPC symbol slots of one memory-entry into its
//! stream (docs/formats.md#bpc-symbols, docs/formats.md#stream-packing): the packing stages of
//! [`crate::BpcCompressor`].
//!
//! Each slot holds a code word with its payload as one value `code` of
//! `len` bits (0..=32; 0 = empty slot) already in stream order
//! ([`crate::bpc_stream_order`]: first emitted bit at bit 0, zero at and
//! above bit `len`). The stream is LSB-first: stream bit `j` is vector bit
//! `C[j]`, so a slot enters the stream as it is, at the sum of the previous
//! lengths.
//!
//! The network is a balanced binary tree of shift-OR nodes
//! (`m = a | (b << len_a)`, `len_m = len_a + len_b`), 6 levels over 35
//! leaves, with pipeline registers after the levels the build names
//! ([`PackerCuts`]: after level 3 only, 5 partial streams of slots
//! `8k..8k+8`, built [`crate::Stages::Paper`]; after each of levels 1-5
//! built [`crate::Stages::EightLevels`]). Every node is exactly as wide as its inputs together (at
//! most 768 bits: a longer stream is stored RAW, docs/formats.md#size-classes, and only its
//! length matters then) and every length exactly as wide as its largest
//! value, so each shifter has only the stages its shift amount needs.
//! `#[hdl_gen]` cannot write widths that change per tree level, so, like
//! [`crate::delta_packing`], the block writes its Verilog itself
//! (`Verilog::Custom`: the tree as `wire`s, the cuts as `reg`s) and
//! simulates in plain Rust (a register holds the slots it took); both
//! sides are checked against the golden model (rust-hdl equivalence tests,
//! Icarus co-simulation).

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;

/// Symbol slots: the base prefix, the base payload, 33 planes.
pub const SLOTS: usize = 35;

/// Stream bits kept: a stream longer than 96 bytes is stored RAW.
pub const KEPT_BITS: usize = 768;

/// LSB-first bit buffer for the Rust side of the packers.
struct Bits1120 {
    words: [u32; 36],
    at: usize,
}

impl Bits1120 {
    fn new() -> Self {
        Bits1120 { words: [0; 36], at: 0 }
    }

    /// OR `value` (LSB-first) in at the end and advance by `len` bits, as
    /// the tree's nodes do (`a | (b << len_a)`: no mask), up to 1152 bits.
    fn push(&mut self, value: u32, len: usize) {
        if self.at < 35 * 32 {
            let (w, s) = (self.at / 32, self.at % 32);
            let v = (value as u64) << s;
            self.words[w] |= v as u32;
            if w + 1 < 36 {
                self.words[w + 1] |= (v >> 32) as u32;
            }
        }
        self.at += len;
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

/// Merge the nodes of one tree level pairwise into `wire`s named
/// `{prefix}_{k}` (an odd node passes up as it is); returns the next level.
fn merge_level(v: &mut String, level: &[Node], prefix: &str) -> Vec<Node> {
    let mut next = Vec::new();
    for (k, pair) in level.chunks(2).enumerate() {
        if let [a, b] = pair {
            let width = (a.width + b.width).min(KEPT_BITS);
            let max = a.max + b.max;
            let len_width = bits_for(max);
            let name = format!("{prefix}_{k}");
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
    next
}

/// Tree levels: 35 leaves, then 18, 9, 5, 3, 2 and 1 node.
pub const LEVELS: usize = 6;

/// Where [`BpcPacker`] has registers: `cuts[l]` puts one after tree level
/// `l + 1` (levels 1..=5; the root, level 6, always feeds the outputs
/// straight).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackerCuts(pub [bool; LEVELS - 1]);

impl PackerCuts {
    /// [`Stages::Paper`](crate::Stages::Paper): one register, after level 3
    /// (5 partial streams).
    pub const PAPER: PackerCuts = PackerCuts([false, false, true, false, false]);
    /// [`Stages::EightLevels`](crate::Stages::EightLevels): a register after
    /// every level but the root.
    pub const EIGHT_LEVELS: PackerCuts = PackerCuts([true; LEVELS - 1]);

    /// Registers on the way through (the packer's latency in cycles).
    pub const fn count(self) -> u64 {
        let mut n = 0;
        let mut l = 0;
        while l < LEVELS - 1 {
            if self.0[l] {
                n += 1;
            }
            l += 1;
        }
        n
    }
}

/// The packer's registers in plain Rust: each cut holds the 35 slots it
/// was loaded with (the tree is a function of them), and the outputs
/// computed from the last cut.
#[derive(Clone)]
struct PackerRegs {
    cuts: PackerCuts,
    slots: [[(u32, u32); SLOTS]; LEVELS - 1],
}

impl PackerRegs {
    /// The slots the outputs are made of: the last cut's, or `input` when
    /// there is no cut.
    fn last(&self, input: [(u32, u32); SLOTS]) -> [(u32, u32); SLOTS] {
        (0..LEVELS - 1).rev().find(|&l| self.cuts.0[l]).map_or(input, |l| self.slots[l])
    }

    /// A rising edge: cut `l` takes what reaches it (the previous cut's
    /// slots before the edge, or `input`) when bit `l` of `load` is set.
    fn clock(&mut self, input: [(u32, u32); SLOTS], load: u32) {
        let before = self.slots;
        let mut reaching = input;
        for l in 0..LEVELS - 1 {
            if self.cuts.0[l] {
                if load >> l & 1 == 1 {
                    self.slots[l] = reaching;
                }
                reaching = before[l];
            }
        }
    }
}

/// The stream of 35 slots: its first 768 bits (zero above) and its length.
fn pack(slots: &[(u32, u32); SLOTS]) -> (EntryBits, u64) {
    let mut b = Bits1120::new();
    for &(code, len) in slots {
        b.push(code, len as usize);
    }
    (EntryBits::from_words(&b.kept(KEPT_BITS)), b.at as u64)
}

// The registers are the block's state, outside rust-hdl's signals: the
// Verilog side is written by `packer_verilog`.
impl Logic for PackerRegs {
    fn update(&mut self) {}
}

impl Block for PackerRegs {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, _name: &str, _probe: &mut dyn Probe) {}
}

seq_macro::seq!(N in 0..35 {
/// Stages 3.. of [`crate::BpcCompressor`]: the 35 slots packed into the
/// stream by the shift-OR tree, with registers after the tree levels
/// `cuts` names ([`PackerCuts`]).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock |
/// | `load` | 5 | in | bit `l`: the register after tree level `l + 1` takes its level's nodes (bits of levels without a register are ignored) |
/// | `code0` .. `code34` | 32 each | in | slot `N`'s code word and payload in stream order: first emitted bit at bit 0, zero at and above bit `len` |
/// | `len0` .. `len34` | 32 each | in | slot `N`'s bit count, 0..=32 (the low 6 bits are read) |
/// | `stream` | 1024 | out | the first 768 stream bits, LSB-first (`C[j]` = stream bit `j`); bits 768.. are 0 |
/// | `total` | 11 | out | the stream's length in bits (at most 35 x 32 = 1120); taken into the last register as a sum of that level's lengths |
///
/// Latency: one cycle per register ([`PackerCuts::count`]); the stream
/// and the length leave the last register through the levels after it.
/// Per level: a node is `m = a | (b << len_a)`, `len_m = len_a + len_b`
/// (one barrel shift per level; the slots come in stream order).
// `LogicBlock`, not `SettleBlock`: `update` acts on `clock.pos_edge()`
// itself, so it must see the edge in the pass the flip-flops see it.
#[derive(LogicBlock)]
pub struct BpcPacker {
    pub clock: Signal<In, Clock>,
    pub load: Signal<In, Bits<5>>,
    #( pub code~N: Signal<In, Bits<32>>, )*
    #( pub len~N: Signal<In, Bits<32>>, )*
    pub stream: Signal<Out, EntryBits>,
    pub total: Signal<Out, Bits<11>>,
    regs: PackerRegs,
}

impl BpcPacker {
    /// The packer with registers after the levels `cuts` names.
    pub fn new(cuts: PackerCuts) -> Self {
        BpcPacker {
            clock: Default::default(),
            load: Default::default(),
            #( code~N: Default::default(), )*
            #( len~N: Default::default(), )*
            stream: Default::default(),
            total: Default::default(),
            regs: PackerRegs { cuts, slots: [[(0, 0); SLOTS]; LEVELS - 1] },
        }
    }

    fn slots(&self) -> [(u32, u32); SLOTS] {
        [ #( (self.code~N.val().to_u32(), self.len~N.val().to_u32() & 0x3F), )* ]
    }
}

impl Logic for BpcPacker {
    fn update(&mut self) {
        let input = self.slots();
        if self.clock.pos_edge() {
            self.regs.clock(input, self.load.val().to_u32());
        }
        let (stream, total) = pack(&self.regs.last(input));
        self.stream.next = stream;
        self.total.next = total.into();
    }

    fn connect(&mut self) {
        self.stream.connect();
        self.total.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(packer_verilog(self.regs.cuts))
    }
}
});

/// The Verilog body of [`BpcPacker`] with registers at `cuts`.
fn packer_verilog(cuts: PackerCuts) -> String {
    let mut v = String::from(
        "// BPC symbol packing: slots in stream order concatenated by a shift-OR tree, registers after the levels the build names.\n",
    );
    let mut level = Vec::new();
    for i in 0..SLOTS {
        v += &format!("wire [31:0] leaf{i} = code{i};\n");
        level.push(Node { value: format!("leaf{i}"), width: 32, len: format!("len{i}[5:0]"), len_width: 6, max: 32 });
    }
    let last_cut = (0..LEVELS - 1).rev().find(|&l| cuts.0[l]);
    let mut unused = Vec::new();
    for depth in 1..=LEVELS {
        level = merge_level(&mut v, &level, &format!("n{depth}"));
        let l = depth - 1;
        if l >= LEVELS - 1 {
            continue;
        }
        if !cuts.0[l] {
            unused.push(format!("load[{l}]"));
            continue;
        }
        let regs: Vec<Node> = level
            .iter()
            .enumerate()
            .map(|(k, n)| Node { value: format!("q{depth}_{k}"), len: format!("q{depth}_{k}_len"), ..n.clone() })
            .collect();
        let mut init = String::new();
        let mut take = String::new();
        for (n, q) in level.iter().zip(&regs) {
            v += &format!("reg [{}:0] {};\nreg [{}:0] {};\n", q.width - 1, q.value, q.len_width - 1, q.len);
            init += &format!("    {} = {}'h0;\n    {} = {}'h0;\n", q.value, q.width, q.len, q.len_width);
            take += &format!("        {} <= {};\n        {} <= {};\n", q.value, n.value, q.len, n.len);
        }
        if last_cut == Some(l) {
            // The root's length, summed before the register.
            let sum: Vec<String> = level.iter().map(|n| padded(&n.len, n.len_width, 11)).collect();
            v += &format!("wire [10:0] n{depth}_total = {};\nreg [10:0] total_q;\n", sum.join(" + "));
            init += "    total_q = 11'h0;\n";
            take += &format!("        total_q <= n{depth}_total;\n");
        }
        v += &format!("initial begin\n{init}end\nalways @(posedge clock) begin\n    if (load[{l}]) begin\n{take}    end\nend\n");
        level = regs;
    }
    assert_eq!(level.len(), 1);
    let root = &level[0];
    if last_cut.is_some() {
        // The length comes from the sum taken into the last register.
        unused.push(root.len.clone());
    }
    if !unused.is_empty() {
        v += &format!("wire unused_ok = &{{1'b1, {}}};\n", unused.join(", "));
    }
    let total = if last_cut.is_some() { "total_q".to_string() } else { padded(&root.len, root.len_width, 11) };
    v + &format!(
        "always @(*) begin\n    stream = 1024'h0;\n    stream[{}:0] = {};\n    total = {total};\nend\n",
        root.width - 1,
        root.value,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_covers_every_slot_once_and_ends_at_768_bits() {
        for cuts in [PackerCuts::PAPER, PackerCuts::EIGHT_LEVELS] {
            let v = packer_verilog(cuts);
            let tokens: Vec<&str> = v.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').collect();
            for i in 0..SLOTS {
                let name = format!("leaf{i}");
                assert_eq!(tokens.iter().filter(|t| **t == name).count(), 2, "leaf {i}: declared and used once:\n{v}");
            }
            assert!(v.contains("stream[767:0]"), "{v}");
            let registers = tokens.iter().filter(|t| t.starts_with('q') && t.ends_with("_len")).count();
            assert!(registers > 0, "{v}");
        }
        // Paper: the 5 partial streams of 256, 256, 256, 256 and 96 bits.
        let v = packer_verilog(PackerCuts::PAPER);
        for (k, w) in [256, 256, 256, 256, 96].iter().enumerate() {
            assert!(v.contains(&format!("reg [{}:0] q3_{k};", w - 1)), "{v}");
        }
        assert!(!v.contains("reg [63:0] q1_0;"), "{v}");
        assert!(packer_verilog(PackerCuts::EIGHT_LEVELS).contains("reg [63:0] q1_0;"));
        assert_eq!((PackerCuts::PAPER.count(), PackerCuts::EIGHT_LEVELS.count()), (1, 5));
    }

    #[test]
    fn registers_pass_slots_one_cut_per_edge() {
        let mut regs = PackerRegs { cuts: PackerCuts::EIGHT_LEVELS, slots: [[(0, 0); SLOTS]; LEVELS - 1] };
        let a = [(1, 3); SLOTS];
        regs.clock(a, 0b11111);
        assert_eq!(regs.slots[0], a);
        assert_eq!(regs.last([(0, 0); SLOTS]), [(0, 0); SLOTS]);
        for _ in 0..4 {
            regs.clock([(0, 0); SLOTS], 0b11111);
        }
        assert_eq!(regs.last([(0, 0); SLOTS]), a);
        // A register without its load keeps its slots.
        regs.clock([(0, 0); SLOTS], 0b01111);
        assert_eq!(regs.last([(0, 0); SLOTS]), a);
    }

    #[test]
    fn bit_buffer_appends_across_words() {
        let mut b = Bits1120::new();
        b.push(0b101, 3);
        b.push(u32::MAX, 32);
        b.push(1, 1);
        // No mask: a value's bits past its length are ORed in, as in the tree.
        b.push(0b110, 1);
        assert_eq!(b.at, 37);
        assert_eq!(b.words[0], 0b101 | (u32::MAX << 3));
        assert_eq!(b.words[1], 0b111 | (1 << 3) | (0b110 << 4));
        let k = b.kept(34);
        assert_eq!(k[1], 0b11);
    }
}

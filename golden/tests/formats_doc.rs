//! `docs/formats.md` cannot drift from the golden models: every worked
//! example and every checked table in it is rendered here from the golden
//! code and compared with the document.
//!
//! - A worked example is a fenced block whose first line is `example: ID`.
//!   Its lines are compared, whitespace-normalised, with what
//!   [`render_example`] makes of the same inputs with the golden code; a
//!   missing, extra or changed line fails. Inputs (the words of an entry,
//!   the registers of a translation) are part of the block, so changing an
//!   input in the document without recomputing the outputs fails too.
//! - A checked table row is rendered by [`table_rows`] and must appear in
//!   the document as a line of its own.
//! - Every `docs/formats.md#anchor` cited anywhere in the repository must be
//!   a heading of the document.
//!
//! After a deliberate format change, print the new blocks and rows with
//! `cargo test -p buddy-golden --test formats_doc -- --ignored --nocapture`
//! and paste them into the document.

use buddy_golden::bdi::{self, Bdi};
use buddy_golden::bitstream::BitWriter;
use buddy_golden::bpc::{self, Symbol};
use buddy_golden::lcp::{self, Layout, LcpPage};
use buddy_golden::metadata_cache::{MetadataCache, MetadataCacheConfig};
use buddy_golden::translation::{locate_byte, translate_entry, BuddyRegisters, PageSize, Place, Pte, TargetRatio, SECTOR_BYTES};
use buddy_golden::{Algorithm, Bpc, Codec, Mag, MagBdi, MemoryEntry, SizeClass, ENTRY_BYTES};
use std::collections::BTreeMap;
use std::path::Path;

const DOC: &str = include_str!("../../docs/formats.md");

// ---------------------------------------------------------------- formatting

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// `0x1_0028_00c0`: hex digits grouped by four from the right.
fn addr(v: u64) -> String {
    let digits = format!("{v:x}");
    let mut groups: Vec<&str> = Vec::new();
    let mut end = digits.len();
    while end > 0 {
        let start = end.saturating_sub(4);
        groups.push(&digits[start..end]);
        end = start;
    }
    groups.reverse();
    format!("0x{}", groups.join("_"))
}

/// Words as `w[a-b]=0x..` groups of equal consecutive values; zero groups
/// are left out and named once at the end.
fn words_line(w: &[u32; 32]) -> String {
    let mut parts = Vec::new();
    let mut omitted = false;
    let mut i = 0;
    while i < 32 {
        let mut j = i;
        while j + 1 < 32 && w[j + 1] == w[i] {
            j += 1;
        }
        if w[i] == 0 {
            omitted = true;
        } else if i == j {
            parts.push(format!("w[{i}]=0x{:08x}", w[i]));
        } else {
            parts.push(format!("w[{i}-{j}]=0x{:08x}", w[i]));
        }
        i = j + 1;
    }
    let mut s = parts.join(" ");
    if omitted {
        s += if parts.is_empty() { "all words 0" } else { ", all other words 0" };
    }
    s
}

/// Non-zero values by index, consecutive equal values as a range from the
/// highest index down (`DBP[32-2]=0x00800000`), then `, all others 0`.
fn planes_line(name: &str, v: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut b = v.len() as i64 - 1;
    while b >= 0 {
        let x = v[b as usize];
        let mut lo = b;
        while lo > 0 && v[lo as usize - 1] == x {
            lo -= 1;
        }
        if x != 0 {
            parts.push(if lo == b { format!("{name}[{b}]=0x{x:08x}") } else { format!("{name}[{b}-{lo}]=0x{x:08x}") });
        }
        b = lo - 1;
    }
    format!("{}, all others 0", parts.join(" "))
}

fn signed(v: i64) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        format!("{v}")
    }
}

/// The field of width `n` at stream bit `p` of LSB-first packed bytes.
fn field(bytes: &[u8], p: usize, n: usize) -> u64 {
    (0..n).fold(0u64, |v, i| v | (((bytes[(p + i) / 8] >> ((p + i) % 8)) & 1) as u64) << i)
}

/// The document's name of a BPC symbol.
fn symbol_name(s: Symbol) -> String {
    match s {
        Symbol::BaseZero => "BASE0".into(),
        Symbol::Base4(v) | Symbol::Base8(v) | Symbol::Base16(v) => {
            let n = match s {
                Symbol::Base4(_) => 4,
                Symbol::Base8(_) => 8,
                _ => 16,
            };
            let x = ((v << (32 - n)) as i32) >> (32 - n);
            format!("BASE{n}({x})")
        }
        Symbol::Base32(v) => format!("BASE32(0x{v:08x})"),
        Symbol::ZeroRun(n) => format!("ZRUN({n})"),
        Symbol::Zero1 => "ZERO1".into(),
        Symbol::All1 => "ALL1".into(),
        Symbol::Dbp0 => "DBP0".into(),
        Symbol::Two1(p) => format!("TWO1({p})"),
        Symbol::One1(p) => format!("ONE1({p})"),
        Symbol::Raw(x) => format!("RAW(0x{x:08x})"),
    }
}

/// A symbol's code word and payload as the bits it emits, first bit first.
fn symbol_bits(s: Symbol) -> String {
    let (code, n) = s.code();
    format!("{:0width$b}", code, width = n as usize)
}

fn stored_line(c: &buddy_golden::CompressedEntry, entry: &MemoryEntry) -> String {
    if c.class == SizeClass::Raw {
        assert_eq!(c.stored(), &entry.to_bytes()[..]);
        "the entry's own 128 bytes (RAW)".into()
    } else {
        hex_bytes(c.stored())
    }
}

// ---------------------------------------------------------------- examples

/// The input words of the codec examples, by example id.
fn example_words(id: &str) -> Option<(Algorithm, [u32; 32])> {
    let sparse = |pairs: &[(usize, u32)]| {
        let mut w = [0u32; 32];
        for &(i, v) in pairs {
            w[i] = v;
        }
        w
    };
    let mag = [(0, 3), (1, 0x2000_0010), (2, 0x2000_0000), (3, 0x2000_001f), (4, 0xffff_fffe), (5, 0x2000_0011)];
    Some(match id {
        "zvc" => (Algorithm::Zvc, sparse(&[(1, 0x1122_3344), (6, 0xcafe_f00d), (30, 7)])),
        "zvc-raw" => (Algorithm::Zvc, std::array::from_fn(|i| if i < 24 { 0x0101_0101 } else { 0 })),
        "mag-bdi-32" => (Algorithm::MagBdi(Mag::B32), sparse(&mag)),
        "mag-bdi-16" => (Algorithm::MagBdi(Mag::B16), sparse(&mag)),
        "mag-bdi-64" => (Algorithm::MagBdi(Mag::B64), sparse(&mag)),
        "mag-bdi-16-k3" => {
            (Algorithm::MagBdi(Mag::B16), sparse(&[(0, 511), (1, -512i32 as u32), (2, 0x0bad_f00d), (3, 0x0bad_f00d - 300)]))
        }
        "bpc" => (
            Algorithm::Bpc,
            std::array::from_fn(|i| {
                if i < 16 {
                    7
                } else if i < 24 {
                    9
                } else {
                    5
                }
            }),
        ),
        "bpc-e4" => (Algorithm::Bpc, E4),
        "bdi" => (Algorithm::Bdi, BDI_BASE8),
        "bdi-base4" => (Algorithm::Bdi, BDI_BASE4),
        _ => return None,
    })
}

const E4: [u32; 32] = [
    0x6AA79987, 0xBB91433A, 0x029A7245, 0xD1F6F86C, 0xD340BBCD, 0xCD8778E7, 0x4C73A942, 0xDAEA58BA, 0x5E503A67, 0xEE897110, 0x3193CA54,
    0x452EC40A, 0x90E5E945, 0x6FACAA50, 0x29645F8B, 0x5F811CB9, 0x1FCFF454, 0xDFC9E3B1, 0x6ED4E94B, 0x42D6CB5C, 0x8FE46024, 0xA091250E,
    0x2CA1C789, 0x9C9CEA0C, 0x8D9FE5B9, 0x2FD2B7A4, 0x5ADAD121, 0xBCF74D7A, 0xF543BBCF, 0xBB9D58E4, 0x175F0CD2, 0x87F26AEE,
];

/// The 32 words of sixteen 8-byte values: `v[0] = B = 0x00007f3a12345000`,
/// `v[1] = B + 8`, `v[2] = 5`, `v[3] = B - 16`, `v[4] = -2`, the rest 0.
const BDI_BASE8: [u32; 32] = {
    let v: [u64; 5] = [0x7f3a_1234_5000, 0x7f3a_1234_5008, 5, 0x7f3a_1234_4ff0, 0xffff_ffff_ffff_fffe];
    let mut w = [0u32; 32];
    let mut i = 0;
    while i < v.len() {
        w[2 * i] = v[i] as u32;
        w[2 * i + 1] = (v[i] >> 32) as u32;
        i += 1;
    }
    w
};

/// `w[i] = 1000 + i` for `i < 8`, the rest 0: 32-bit counters.
const BDI_BASE4: [u32; 32] = {
    let mut w = [0u32; 32];
    let mut i = 0;
    while i < 8 {
        w[i] = 1000 + i as u32;
        i += 1;
    }
    w
};

/// Every example id the document must contain.
const EXAMPLE_IDS: [&str; 18] = [
    "entry",
    "packing",
    "zvc",
    "zvc-raw",
    "mag-bdi-32",
    "mag-bdi-16",
    "mag-bdi-64",
    "mag-bdi-16-k3",
    "bpc",
    "bpc-e4",
    "bdi",
    "bdi-base4",
    "lcp",
    "metadata-address",
    "metadata-nibbles",
    "translation-2x",
    "translation-16x",
    "translation-fault",
];

fn codec_example(id: &str, alg: Algorithm, w: [u32; 32]) -> Vec<String> {
    let e = MemoryEntry::from_words(w);
    let codec = alg.codec();
    let c = codec.compress(&e);
    assert_eq!(codec.decompress(c.class, c.stored()), Ok(e), "{id}: round trip");
    let mut out = vec![format!("example: {id}"), format!("algorithm: {alg}"), format!("words: {}", words_line(&w))];
    match alg {
        Algorithm::Zvc => {
            out.push(format!("mask: 0x{:08x}", buddy_golden::zvc::mask(&e)));
        }
        Algorithm::MagBdi(mag) => {
            let m = MagBdi::new(mag);
            let paper = m.encoding(&e).expect("the MAG-BDI examples compress");
            let k = c.class.bytes() / mag.bytes();
            let d = mag.delta_bits_of(k) as usize;
            if paper.k != k {
                out.push(format!(
                    "smallest encoding: k={}, d={} bits, {} stream bits (MAG-BDI paper)",
                    paper.k, paper.delta_bits, paper.stream_bits
                ));
            }
            out.push(format!("stored encoding: k={k}, d={d} bits"));
            let s = c.stored();
            out.push(format!("base B: 0x{:08x}", field(s, 0, 32)));
            out.push(format!("mask: 0x{:08x}", field(s, 32, 32)));
            let deltas: Vec<String> = (0..32)
                .filter_map(|i| {
                    let raw = field(s, 64 + d * i, d) as i64;
                    let v = if raw >> (d - 1) == 1 { raw - (1 << d) } else { raw };
                    (v != 0).then(|| format!("delta[{i}]={}", signed(v)))
                })
                .collect();
            out.push(format!("deltas: {}, all others 0", deltas.join(" ")));
        }
        Algorithm::Bdi => {
            let enc = Bdi.encoding(&e).expect("the BDI examples compress");
            out.push(format!("encoding: {enc} (code {})", enc.code()));
            let s = c.stored();
            assert_eq!(field(s, 0, 4), enc.code() as u64);
            if let Some((k, d)) = enc.base_delta_bytes() {
                let n = 128 / k;
                out.push(format!("values: {n} of {k} bytes, deltas of {d} byte{}", if d == 1 { "" } else { "s" }));
                out.push(format!("base B: 0x{:0w$x}", field(s, 4, 8 * k), w = 2 * k));
                let mask = field(s, 4 + 8 * k, n);
                out.push(format!("mask: 0x{mask:0w$x}", w = n / 4));
                let deltas: Vec<String> = (0..n)
                    .filter_map(|i| {
                        let bits = 8 * d;
                        let raw = field(s, 4 + 8 * k + n + bits * i, bits) as i64;
                        let v = if raw >> (bits - 1) == 1 { raw - (1 << bits) } else { raw };
                        (v != 0).then(|| format!("delta[{i}]={}{}", signed(v), if mask >> i & 1 == 1 { "" } else { " (immediate)" }))
                    })
                    .collect();
                out.push(format!("deltas: {}, all others 0", deltas.join(" ")));
            }
        }
        Algorithm::Bpc => {
            let deltas: Vec<String> = (0..31)
                .filter_map(|k| {
                    let d = w[k + 1] as i32 as i64 - w[k] as i32 as i64;
                    (d != 0).then(|| format!("D[{k}]={}", signed(d)))
                })
                .collect();
            if deltas.len() <= 4 {
                out.push(format!("deltas: {}, all others 0", deltas.join(" ")));
                let dbp = bpc::delta_bit_planes(&w);
                let dbx: Vec<u32> = (0..33).map(|b| dbp[b] ^ if b == 32 { 0 } else { dbp[b + 1] }).collect();
                out.push(format!("DBP: {}", planes_line("DBP", &dbp)));
                out.push(format!("DBX: {}", planes_line("DBX", &dbx)));
            }
            let syms = bpc::symbols(&e);
            if syms.len() <= 8 {
                out.push(format!("symbols: {}", syms.iter().map(|&s| symbol_name(s)).collect::<Vec<_>>().join(" ")));
                out.push(format!("stream: {}", syms.iter().map(|&s| symbol_bits(s)).collect::<Vec<_>>().join(" ")));
            } else {
                let first: Vec<String> = syms[..2].iter().map(|&s| symbol_name(s)).collect();
                out.push(format!("symbols: {} ... ({} symbols)", first.join(" "), syms.len()));
            }
            let (bytes, bits) = bpc::encode_full(&e);
            assert_eq!(bpc::decode(&bytes), Ok((e, bits)));
            if c.class == SizeClass::Raw {
                out.push(format!("stream bytes: {} ... ({} bytes)", hex_bytes(&bytes[..8]), bytes.len()));
            }
        }
    }
    out.push(format!("stream bits: {}", c.stream_bits));
    out.push(format!("class: {}", c.class));
    out.push(format!("stored: {}", stored_line(&c, &e)));
    out
}

const REGS: BuddyRegisters =
    BuddyRegisters { gbbr: 0x1_0000_0000, carve_out_bytes: 3 << 30, md_base: 0x8000_0000, heap_base: 0x7f00_0000_0000 };

fn regs_line(r: &BuddyRegisters) -> String {
    format!(
        "registers: GBBR={} carve-out={} bytes MD_BASE={} HEAP_BASE={}",
        addr(r.gbbr),
        addr(r.carve_out_bytes),
        addr(r.md_base),
        addr(r.heap_base)
    )
}

fn translation_example(id: &str, pte: Pte, va: u64, class: SizeClass, bytes: &[u64]) -> Vec<String> {
    let page = PageSize::Huge2M;
    let target = TargetRatio::from_code(pte.target_code).unwrap();
    let e = (va % page.bytes()) / ENTRY_BYTES as u64;
    let mut out = vec![
        format!("example: {id}"),
        regs_line(&REGS),
        "page: 2 MiB".to_string(),
        format!(
            "PTE: frame={} compressed={} target={} ({}) buddy_offset={}",
            addr(pte.frame),
            pte.compressed as u8,
            pte.target_code,
            target,
            pte.buddy_offset
        ),
        format!("PTE Buddy bits [26:0]: 0x{:07x}", pte.buddy_bits()),
        format!("va: {} (heap page {}, entry e={}, byte o={})", addr(va), (va - REGS.heap_base) / page.bytes(), e, va % ENTRY_BYTES as u64),
        format!("class: {class} ({} bytes)", class.bytes()),
    ];
    let a = translate_entry(&REGS, page, &pte, va, class).unwrap();
    let (ds, dn) = a.device.sectors();
    out.push(format!(
        "device part: {}, {} bytes; the class needs {} bytes = {} from {}",
        addr(a.device_slot.address),
        a.device_slot.bytes,
        a.device.bytes,
        sectors(dn),
        addr(ds)
    ));
    let slot = translate_entry(&REGS, page, &pte, va, SizeClass::Raw).unwrap().buddy.unwrap();
    match a.buddy {
        Some(b) => {
            let (bs, bn) = b.sectors();
            out.push(format!(
                "buddy slot: {}, {} bytes; the class needs {} bytes = {} from {}",
                addr(slot.address),
                target.buddy_stride(),
                b.bytes,
                sectors(bn),
                addr(bs)
            ));
        }
        None => out.push(format!("buddy slot: {}, {} bytes; not read (the class fits)", addr(slot.address), target.buddy_stride())),
    }
    let m = a.metadata.unwrap();
    out.push(format!("metadata nibble: byte {}, {} nibble", addr(m.address), if m.high { "high" } else { "low" }));
    for &o in bytes {
        let place = match locate_byte(&REGS, page, &pte, va - va % 128 + o).unwrap() {
            Place::Device(x) => format!("device {}", addr(x)),
            Place::Buddy(x) => format!("buddy {}", addr(x)),
        };
        out.push(format!("stored byte o={o}: {place}"));
    }
    out
}

fn sectors(n: u64) -> String {
    format!("{n} sector{}", if n == 1 { "" } else { "s" })
}

/// The expected lines of example `id`, computed with the golden code.
fn render_example(id: &str) -> Vec<String> {
    if let Some((alg, w)) = example_words(id) {
        return codec_example(id, alg, w);
    }
    match id {
        "entry" => {
            let bytes: [u8; 128] = std::array::from_fn(|i| i as u8);
            let e = MemoryEntry::from_bytes(&bytes);
            let w = e.words();
            let bit = |k: usize| (w[k / 32] >> (k % 32)) & 1;
            // E[k] is bit k mod 8 of byte k div 8.
            for k in 0..1024 {
                assert_eq!(bit(k), ((bytes[k / 8] >> (k % 8)) & 1) as u32);
            }
            let h = e.to_hex();
            vec![
                format!("example: {id}"),
                "bytes: b[i] = i for i = 0..127".into(),
                format!("w[0]: 0x{:08x}", w[0]),
                format!("w[1]: 0x{:08x}", w[1]),
                format!("w[31]: 0x{:08x}", w[31]),
                format!("E[1000]: {} (bit 0 of b[125] = 0x{:02x})", bit(1000), bytes[125]),
                format!("E[1001]: {} (bit 1 of b[125])", bit(1001)),
                format!("E as 256 hex digits: {} ... {}", &h[..16], &h[240..]),
            ]
        }
        "packing" => {
            // (width, value, msb_first)
            let fields: [(u32, u32, bool); 4] = [(3, 0x5, false), (7, 0x2a, false), (3, 0x3, true), (12, 0xabc, false)];
            let mut w = BitWriter::default();
            for &(n, v, msb) in &fields {
                if msb {
                    w.put_msb_first(v, n);
                } else {
                    w.put_lsb_first(v, n);
                }
            }
            let mut bytes = vec![0u8; w.len().div_ceil(8)];
            w.copy_bytes(&mut bytes);
            let mut p = 0;
            let mut groups = Vec::new();
            for &(n, _, _) in &fields {
                groups.push((p..p + n as usize).map(|j| char::from(b'0' + ((bytes[j / 8] >> (j % 8)) & 1))).collect::<String>());
                p += n as usize;
            }
            let desc: Vec<String> =
                fields.iter().map(|&(n, v, msb)| format!("{n} bits 0x{v:x} {}", if msb { "MSB-first" } else { "LSB-first" })).collect();
            vec![
                format!("example: {id}"),
                format!("fields: {}", desc.join(", ")),
                format!("stream s[0..]: {}", groups.join(" ")),
                format!("stream bits: {}", w.len()),
                format!("stored: {}", hex_bytes(&bytes)),
            ]
        }
        "lcp" => lcp_example(id),
        "metadata-address" => {
            let va = REGS.heap_base + 0x12345;
            let pte = Pte { frame: 0, compressed: true, target_code: 2, buddy_offset: 0 };
            let m = translate_entry(&REGS, PageSize::Huge2M, &pte, va, SizeClass::Zero).unwrap().metadata.unwrap();
            let n = (va - REGS.heap_base) >> 7;
            vec![
                format!("example: {id}"),
                format!("MD_BASE: {}", addr(REGS.md_base)),
                format!("HEAP_BASE: {}", addr(REGS.heap_base)),
                format!("va: {}", addr(va)),
                format!("entry number n = (va - HEAP_BASE) >> 7: {n}"),
                format!("nibble: byte {}, {} nibble", addr(m.address), if m.high { "high" } else { "low" }),
                format!("32-byte metadata sector: {} (entries {}..{})", addr(m.address & !31), n & !63, (n & !63) + 63),
                format!("128-byte metadata line: {} (entries {}..{})", addr(m.address & !127), n & !255, (n & !255) + 255),
            ]
        }
        "metadata-nibbles" => {
            let classes = [SizeClass::B32, SizeClass::Raw, SizeClass::Zero, SizeClass::B8, SizeClass::B96, SizeClass::B64];
            let regs = BuddyRegisters { md_base: 0, ..REGS };
            let pte = Pte { frame: 0, compressed: true, target_code: 2, buddy_offset: 0 };
            let mut cache = MetadataCache::new(MetadataCacheConfig::default()).unwrap();
            let mut mem: Vec<u8> = Vec::new();
            for (n, c) in classes.iter().enumerate() {
                let va = regs.heap_base + 128 * n as u64;
                let m = translate_entry(&regs, PageSize::Huge2M, &pte, va, *c).unwrap().metadata.unwrap();
                cache.write_nibble(m, c.code(), &mut mem);
            }
            cache.flush(&mut mem);
            let names: Vec<String> = classes.iter().map(|c| format!("{}={}", c, c.code())).collect();
            vec![
                format!("example: {id}"),
                format!("classes of entries n=0..5: {}", names.join(" ")),
                format!("metadata bytes 0..2: {}", hex_bytes(&mem[..3])),
            ]
        }
        "translation-2x" => {
            let pte = Pte { frame: 0x20_0000, compressed: true, target_code: 2, buddy_offset: 5 };
            translation_example(id, pte, REGS.heap_base + 2 * (2 << 20) + 3 * 128 + 17, SizeClass::B96, &[17, 100])
        }
        "translation-16x" => {
            let pte = Pte { frame: 0x40_0000, compressed: true, target_code: 4, buddy_offset: 12 };
            translation_example(id, pte, REGS.heap_base + 5 * 128, SizeClass::B32, &[7, 8, 31])
        }
        "translation-fault" => {
            let mut out = vec![format!("example: {id}"), regs_line(&REGS)];
            let va = REGS.heap_base;
            let cases = [
                ("target=5", Pte { frame: 0, compressed: true, target_code: 5, buddy_offset: 0 }, va),
                ("va below HEAP_BASE", Pte { frame: 0, compressed: true, target_code: 2, buddy_offset: 0 }, va - 128),
                ("buddy_offset=6144, 2x", Pte { frame: 0, compressed: true, target_code: 2, buddy_offset: 6144 }, va),
                ("buddy_offset=6143, 2x, first entry", Pte { frame: 0, compressed: true, target_code: 2, buddy_offset: 6143 }, va),
                (
                    "buddy_offset=6143, 2x, last entry",
                    Pte { frame: 0, compressed: true, target_code: 2, buddy_offset: 6143 },
                    va + (2 << 20) - 128,
                ),
            ];
            for (what, pte, va) in cases {
                let r = translate_entry(&REGS, PageSize::Huge2M, &pte, va, SizeClass::B8);
                let text = match r {
                    Ok(_) => "translates".to_string(),
                    Err(f) => format!("fault: {f}"),
                };
                out.push(format!("{what}: {text}"));
            }
            out
        }
        _ => panic!("no renderer for example {id}"),
    }
}

/// The lines of the LCP example page: line 0 the `bdi` example entry, line 1
/// the `bdi-base4` one, line 2 BPC's E4 (32 unrelated words), line 5 every
/// 8-byte value 0x0123456789abcdef, the others zero.
fn lcp_lines() -> [MemoryEntry; 32] {
    let mut lines = [MemoryEntry::ZERO; 32];
    lines[0] = MemoryEntry::from_words(BDI_BASE8);
    lines[1] = MemoryEntry::from_words(BDI_BASE4);
    lines[2] = MemoryEntry::from_words(E4);
    lines[5] = MemoryEntry::from_words(std::array::from_fn(|i| if i % 2 == 0 { 0x89ab_cdef } else { 0x0123_4567 }));
    lines
}

fn lcp_example(id: &str) -> Vec<String> {
    let lines = lcp_lines();
    let classes: Vec<SizeClass> = lines.iter().map(|e| Bdi.compress(e).class).collect();
    let named: Vec<String> =
        classes.iter().enumerate().filter(|(_, c)| **c != SizeClass::Zero).map(|(i, c)| format!("line {i} {c}")).collect();
    let sizes: [usize; 32] = std::array::from_fn(|i| classes[i].bytes());
    let candidates: Vec<String> = lcp::TARGETS
        .iter()
        .map(|t| {
            let c = t.bytes();
            let e = sizes.iter().filter(|&&b| b > c).count();
            let used = 64 + 32 * c + 128 * e;
            let page = lcp::PHYSICAL_SIZES[..3].iter().find(|&&p| used <= p).map_or("over 2048".to_string(), |p| format!("page {p}"));
            format!("c*={c}: {e} exception{}, {used} bytes, {page}", if e == 1 { "" } else { "s" })
        })
        .collect();
    let page = LcpPage::compress(&lines);
    let layout: Layout = page.layout();
    let target = page.target().expect("the example page compresses");
    let c = target.bytes();
    let b = page.bytes();
    let exceptions: Vec<String> = (0..32).filter(|i| layout.exceptions >> i & 1 == 1).map(|i| i.to_string()).collect();
    assert_eq!(LcpPage::decompress(b), Ok(lines));
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(page.line(i), Ok(*line));
    }
    let slot5 = 64 + 5 * c;
    let first_exception = 64 + 32 * c;
    vec![
        format!("example: {id}"),
        "lines: 0 = the entry of example bdi, 1 = the entry of example bdi-base4, 2 = the entry of example bpc-e4, 5 = every 8-byte value 0x0123456789abcdef, all others 0".to_string(),
        format!("BDI classes: {}, all other lines ZERO", named.join(", ")),
        format!("candidates: {}", candidates.join("; ")),
        format!(
            "chosen: c*={c} (code {}), exceptions: lines {} in slots 0-{}, {} bytes used",
            target.code(),
            exceptions.join(" "),
            exceptions.len() - 1,
            layout.used_bytes
        ),
        format!("physical size: {} bytes (ratio {})", page.physical_size(), 4096 / page.physical_size()),
        format!("metadata bytes 0-7: {}", hex_bytes(&b[..8])),
        format!("metadata bytes 32-33: {}", hex_bytes(&b[32..34])),
        format!("line 5: slot at byte {slot5}: {}", hex_bytes(&b[slot5..slot5 + c])),
        format!("line 2: exception slot 2 at byte {}: {} ...", first_exception + 2 * 128, hex_bytes(&b[first_exception + 256..first_exception + 264])),
    ]
}

// ---------------------------------------------------------------- tables

/// Every row of the document's checked tables, computed with the golden code.
fn table_rows() -> Vec<String> {
    let mut rows = Vec::new();

    // Size classes.
    for c in SizeClass::ALL {
        let bits = match c {
            SizeClass::Zero => "none: all 32 words are 0".to_string(),
            SizeClass::Raw => "more than 768".to_string(),
            _ => {
                let lo = (1..=1089).find(|&b| SizeClass::for_stream_bits(b) == c).unwrap();
                let hi = (1..=1089).rev().find(|&b| SizeClass::for_stream_bits(b) == c).unwrap();
                format!("{lo} to {hi}")
            }
        };
        rows.push(format!("| {} | `{:04b}` | {} | {} | {} | {} |", c.code(), c.code(), c, c.bytes(), c.sectors(), bits));
    }
    for code in 8..16u8 {
        assert!(SizeClass::from_code(code).is_err());
    }

    // ZVC: the class of each number of non-zero words, as ranges.
    let mut counts = vec!["non-zero words".to_string()];
    let mut classes = vec!["class".to_string()];
    let class_of = |n: usize| if n == 0 { SizeClass::Zero } else { SizeClass::for_stream_bits(buddy_golden::zvc::stream_bits(n)) };
    let mut n = 0;
    while n <= 32 {
        let c = class_of(n);
        let mut m = n;
        while m < 32 && class_of(m + 1) == c {
            m += 1;
        }
        counts.push(if m == n { n.to_string() } else { format!("{n}-{m}") });
        classes.push(c.to_string());
        n = m + 1;
    }
    rows.push(format!("| {} |", counts.join(" | ")));
    rows.push(format!("| {} |", classes.join(" | ")));

    // MAG-BDI encodings.
    for mag in Mag::ALL {
        for k in 1..=mag.encodings() {
            let bits = mag.stream_bits_of(k);
            let class = SizeClass::for_stream_bits(bits);
            let stored = if class == SizeClass::Raw {
                "RAW (the entry itself)".to_string()
            } else if class.bytes() * 8 != bits {
                format!("the k={} stream, {}", class.bytes() / mag.bytes(), class)
            } else {
                format!("this stream, {class}")
            };
            rows.push(format!("| {} | {} | {} | {} | {} | {} |", mag.bytes(), k, mag.delta_bits_of(k), bits, bits / 8, stored));
        }
    }

    // BPC symbols: code word = the symbol's bits without its payload.
    let prefix = |s: Symbol, payload: u32| {
        let (code, n) = s.code();
        format!("{:0w$b}", code >> payload, w = (n - payload) as usize)
    };
    let base: [(Symbol, &str, u32, &str); 5] = [
        (Symbol::BaseZero, "BASE0", 0, "v = 0"),
        (Symbol::Base4(0), "BASE4(v)", 4, "-8 <= v <= 7"),
        (Symbol::Base8(0), "BASE8(v)", 8, "-128 <= v <= 127"),
        (Symbol::Base16(0), "BASE16(v)", 16, "-32768 <= v <= 32767"),
        (Symbol::Base32(0), "BASE32(x)", 32, "any other"),
    ];
    for (s, name, payload, when) in base {
        let p = if payload == 0 { "none".to_string() } else { format!("{payload} bits") };
        rows.push(format!("| {name} | {when} | `{}` | {p} | {} |", prefix(s, payload), s.bits()));
    }
    let planes: [(Symbol, &str, u32, &str); 7] = [
        (Symbol::ZeroRun(2), "ZRUN(n)", 5, "n - 2"),
        (Symbol::Zero1, "ZERO1", 0, "none"),
        (Symbol::All1, "ALL1", 0, "none"),
        (Symbol::Dbp0, "DBP0", 0, "none"),
        (Symbol::Two1(0), "TWO1(p)", 5, "p"),
        (Symbol::One1(0), "ONE1(p)", 5, "p"),
        (Symbol::Raw(0), "RAW(x)", 31, "x"),
    ];
    for (s, name, payload, what) in planes {
        let p = if payload == 0 { "none".to_string() } else { format!("{what}, {payload} bits") };
        rows.push(format!("| {name} | `{}` | {p} | {} |", prefix(s, payload), s.bits()));
    }

    // BPC test vectors.
    let vectors: [(&str, &str, [u32; 32]); 13] = [
        ("E1", "every word 0", [0; 32]),
        ("E2", "every word 0xdeadbeef", [0xdead_beef; 32]),
        ("E3", "w[i] = i", std::array::from_fn(|i| i as u32)),
        ("E4", "32 unrelated words (example `bpc-e4`)", E4),
        ("E5", "every word 5", [5; 32]),
        ("E6", "w[i] = 2i", std::array::from_fn(|i| 2 * i as u32)),
        ("E7", "w[0-9] = 0, w[10-31] = 2", std::array::from_fn(|i| if i < 10 { 0 } else { 2 })),
        ("E8", "w[i] = 16 - i (16 down to -15)", std::array::from_fn(|i| (16 - i as i32) as u32)),
        (
            "E9",
            "w[0-4] = 0, w[5] = 1, w[6-31] = 2",
            std::array::from_fn(|i| {
                if i < 5 {
                    0
                } else if i == 5 {
                    1
                } else {
                    2
                }
            }),
        ),
        ("E10", "every word 0xffffff9c (-100)", [0xffff_ff9c; 32]),
        ("E11", "every word 0xffffffff (-1)", [0xffff_ffff; 32]),
        ("E12", "every word 0x80000000", [0x8000_0000; 32]),
        ("E13", "w[0] = 0x1234, the rest 0", std::array::from_fn(|i| if i == 0 { 0x1234 } else { 0 })),
    ];
    for (id, what, w) in vectors {
        let e = MemoryEntry::from_words(w);
        let (bytes, bits) = bpc::encode_full(&e);
        assert_eq!(bpc::decode(&bytes), Ok((e, bits)));
        let syms = bpc::symbols(&e);
        let (symbols, stream) = if syms.len() > 16 {
            (format!("{} RAW planes", syms.len() - 1), format!("{} ... ({} bytes)", hex_bytes(&bytes[..4]), bytes.len()))
        } else {
            (syms.iter().map(|&s| symbol_name(s)).collect::<Vec<_>>().join(" "), hex_bytes(&bytes))
        };
        let class = Bpc.compress(&e).class;
        rows.push(format!("| {id} | {what} | {bits} | {symbols} | `{stream}` | {class} |"));
    }

    // BDI encodings.
    for enc in bdi::Encoding::ALL {
        let bits = enc.stream_bits();
        let (k, d, n) = match enc.base_delta_bytes() {
            Some((k, d)) => (k.to_string(), d.to_string(), (128 / k).to_string()),
            None if enc == bdi::Encoding::Repeated => ("8".into(), "-".into(), "16".into()),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let class = if enc == bdi::Encoding::Zeros {
            "(never stored: an all-zero entry is ZERO)".to_string()
        } else {
            SizeClass::for_stream_bits(bits).to_string()
        };
        rows.push(format!("| {} | {} | {k} | {d} | {n} | {bits} | {class} |", enc.code(), enc.name()));
    }

    // LCP physical sizes: the layouts with the most exceptions per c* and page size.
    for target in lcp::TARGETS {
        let c = target.bytes();
        let max_e = |page: usize| (page as i64 - 64 - 32 * c as i64).div_euclid(128).clamp(-1, 32);
        let cell = |page: usize| match max_e(page) {
            -1 => "-".to_string(),
            e => e.to_string(),
        };
        rows.push(format!("| {c} | {} | {} | {} | {} |", 64 + 32 * c, cell(512), cell(1024), cell(2048)));
    }

    // Target ratios.
    for t in TargetRatio::ALL {
        let per_page = |b: u64| format!("{} KiB", (2u64 << 20) / 128 * b / 1024);
        rows.push(format!(
            "| {} | `{:03b}` | {} | {} | {} | {} | {} | {} |",
            t.code(),
            t.code(),
            t,
            t.device_bytes(),
            t.buddy_stride(),
            per_page(t.device_bytes()),
            per_page(t.buddy_stride()),
            t.buddy_stride() / 32
        ));
    }

    // Sectors per class and target: device + buddy, for an entry at the
    // start of a page (frame and GBBR 32-byte aligned).
    for t in TargetRatio::ALL {
        let pte = Pte { frame: 0x20_0000, compressed: true, target_code: t.code(), buddy_offset: 0 };
        let mut row = format!("| {} |", t);
        for c in SizeClass::ALL {
            let a = translate_entry(&REGS, PageSize::Huge2M, &pte, REGS.heap_base, c).unwrap();
            let (_, d) = a.device.sectors();
            let b = a.buddy.map_or(0, |b| b.sectors().1);
            assert_eq!(b, (c.bytes() as u64).saturating_sub(t.device_bytes()).div_ceil(SECTOR_BYTES));
            row += &format!(" {d} + {b} |");
        }
        rows.push(row);
    }
    rows
}

// ---------------------------------------------------------------- the document

/// The `example:` blocks of a markdown text: id -> whitespace-normalised lines.
fn doc_examples(doc: &str) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut out = BTreeMap::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if !line.trim_start().starts_with("```") {
            continue;
        }
        // A line that starts with white space continues the line before it.
        let mut block: Vec<String> = Vec::new();
        for l in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            let words = l.split_whitespace().collect::<Vec<_>>().join(" ");
            match block.last_mut() {
                Some(last) if l.starts_with(char::is_whitespace) && !words.is_empty() => {
                    last.push(' ');
                    last.push_str(&words);
                }
                _ => block.push(words),
            }
        }
        if let Some(id) = block.first().and_then(|l| l.strip_prefix("example: ")) {
            let id = id.to_string();
            if out.insert(id.clone(), block).is_some() {
                return Err(format!("example {id} appears twice"));
            }
        }
    }
    Ok(out)
}

/// Check a document text against the golden code; the error lists every
/// difference.
fn check_doc(doc: &str) -> Result<(), String> {
    let mut errors = Vec::new();
    let examples = doc_examples(doc)?;
    for id in examples.keys() {
        if !EXAMPLE_IDS.contains(&id.as_str()) {
            errors.push(format!("example {id}: unknown id (add a renderer to formats_doc.rs)"));
        }
    }
    for id in EXAMPLE_IDS {
        let want = render_example(id);
        match examples.get(id) {
            None => errors.push(format!("example {id}: missing from docs/formats.md")),
            Some(got) if *got != want => {
                errors.push(format!("example {id} differs\n--- docs/formats.md\n{}\n--- golden\n{}", got.join("\n"), want.join("\n")))
            }
            Some(_) => {}
        }
    }
    let lines: std::collections::HashSet<&str> = doc.lines().map(str::trim).collect();
    for row in table_rows() {
        if !lines.contains(row.as_str()) {
            errors.push(format!("table row missing or different: {row}"));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n\n"))
    }
}

#[test]
fn every_worked_example_and_table_matches_golden() {
    if let Err(e) = check_doc(DOC) {
        panic!("docs/formats.md disagrees with the golden models:\n\n{e}");
    }
}

/// The check fails on a document that drifted: one wrong byte, one wrong
/// table cell, a missing example, a changed input.
#[test]
fn the_check_catches_drift() {
    let mutations: [(&str, &str); 5] = [
        ("stored: 42 00 00 40 44 33 22 11 0d f0 fe ca 07 00 00 00", "stored: 42 00 00 40 44 33 22 11 0d f0 fe ca 08 00 00 00"),
        ("| 3 | `0011` | B32 | 32 | 1 | 129 to 256 |", "| 3 | `0011` | B32 | 32 | 1 | 129 to 255 |"),
        ("example: translation-16x", "example-removed: translation-16x"),
        ("w[0-15]=0x00000007", "w[0-15]=0x00000006"),
        ("| ALL1 | `00000` | none | 5 |", "| ALL1 | `00001` | none | 5 |"),
    ];
    for (from, to) in mutations {
        assert!(DOC.contains(from), "the document no longer contains {from:?}; update this test");
        let drifted = DOC.replacen(from, to, 1);
        assert!(check_doc(&drifted).is_err(), "changing {from:?} to {to:?} went unnoticed");
    }
}

/// GitHub's anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if !matches!(name.as_str(), "target" | "out" | ".git" | "verilog-out" | "data") {
                visit(&p, files);
            }
        } else if name == "formats_doc.rs" {
            // This file names the pattern it looks for.
        } else if name.ends_with(".rs") || name.ends_with(".md") || name == "Makefile" {
            files.push(p);
        }
    }
}

/// Every `docs/formats.md#anchor` cited in the repository's sources and
/// documents, and every `](#anchor)` link inside the document, is a heading
/// of the document.
#[test]
fn every_cited_anchor_exists() {
    let anchors: std::collections::HashSet<String> =
        DOC.lines().filter(|l| l.starts_with('#')).map(|l| anchor(l.trim_start_matches('#'))).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    visit(&root, &mut files);
    let mut missing = Vec::new();
    let mut cited = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for (i, _) in text.match_indices("formats.md#") {
            let rest = &text[i + "formats.md#".len()..];
            let a: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_').collect();
            cited += 1;
            if !anchors.contains(&a) {
                missing.push(format!("{}: #{a}", f.display()));
            }
        }
    }
    // The document's own links, `](#anchor)`.
    for (i, _) in DOC.match_indices("](#") {
        let a: String = DOC[i + 3..].chars().take_while(|c| *c != ')').collect();
        if !anchors.contains(&a) {
            missing.push(format!("docs/formats.md link: #{a}"));
        }
    }
    assert!(cited > 0, "no citations found under {}", root.display());
    assert!(missing.is_empty(), "anchors cited but not headings of docs/formats.md:\n{}", missing.join("\n"));
}

/// Print every example block and table row as the document should have
/// them (`-- --ignored --nocapture`).
#[test]
#[ignore = "a tool, not a check: prints the blocks for updating docs/formats.md (cargo test -p buddy-golden --test formats_doc -- --ignored --nocapture)"]
fn print_expected_blocks_and_rows() {
    for id in EXAMPLE_IDS {
        println!("```text\n{}\n```\n", render_example(id).join("\n"));
    }
    for row in table_rows() {
        println!("{row}");
    }
}

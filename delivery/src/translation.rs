//! Adapters between the `AddressTranslator` hardware and the golden
//! translation: the access type, the expected outputs (scoreboard), random
//! accesses that reach every fault and the carve-out boundary, and
//! co-simulation vectors.

use crate::cosim::{hex_field, CosimPorts};
use crate::stream::StreamDut;
use buddy_golden::translation::{translate_entry, BuddyRegisters, PageSize, Pte, TranslationFault};
use buddy_golden::SizeClass;
use buddy_hdl::address_translator::fault;
use buddy_hdl::AddressTranslator;
use rand::Rng;

/// One access given to the translator: the registers (held for a whole
/// run), the PTE of the page, and the entry's size class code (0-15; 8-15
/// are reserved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub regs: BuddyRegisters,
    pub page: PageSize,
    pub pte: Pte,
    pub va: u64,
    pub class_code: u8,
}

/// What the translator outputs for one access (its `out_*` ports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Translated {
    /// 0 or a `buddy_hdl::address_translator::fault` code.
    pub fault: u8,
    pub device_address: u64,
    pub device_bytes: u8,
    pub device_part_bytes: u8,
    /// Buddy byte address and byte count.
    pub buddy: Option<(u64, u8)>,
    /// Metadata byte address and nibble (true: high).
    pub metadata: Option<(u64, bool)>,
}

/// The golden model's answer, as the hardware's ports hold it. A reserved
/// size class on a compressed page (which the golden type cannot hold) is
/// checked after every golden fault, as the hardware does.
pub fn expected_translation(a: &Access) -> Translated {
    let class = SizeClass::from_code(a.class_code);
    // The class only matters on a compressed page; any valid class stands in.
    let golden = translate_entry(&a.regs, a.page, &a.pte, a.va, *class.as_ref().unwrap_or(&SizeClass::Raw));
    let fault_code = |f: TranslationFault| match f {
        TranslationFault::ReservedTarget { .. } => fault::RESERVED_TARGET,
        TranslationFault::BelowHeapBase { .. } => fault::BELOW_HEAP_BASE,
        TranslationFault::OutsideCarveOut { .. } => fault::OUTSIDE_CARVE_OUT,
    } as u8;
    match golden {
        Err(f) => Translated { fault: fault_code(f), ..Default::default() },
        Ok(_) if a.pte.compressed && class.is_err() => Translated { fault: fault::RESERVED_CLASS as u8, ..Default::default() },
        Ok(t) => Translated {
            fault: 0,
            device_address: t.device.address,
            device_bytes: t.device.bytes as u8,
            device_part_bytes: t.device_slot.bytes as u8,
            buddy: t.buddy.map(|b| (b.address, b.bytes as u8)),
            metadata: t.metadata.map(|m| (m.address, m.high)),
        },
    }
}

impl StreamDut for AddressTranslator {
    type Input = Access;
    type Output = Translated;
    fn drive_input(&mut self, valid: bool, a: &Access) {
        self.gbbr.next = a.regs.gbbr.into();
        self.carve_out_bytes.next = a.regs.carve_out_bytes.into();
        self.md_base.next = a.regs.md_base.into();
        self.heap_base.next = a.regs.heap_base.into();
        self.in_valid.next = valid;
        self.in_va.next = a.va.into();
        self.in_frame.next = a.pte.frame.into();
        self.in_pte.next = (a.pte.buddy_bits() as u64).into();
        self.in_page_64k.next = a.page == PageSize::Small64K;
        self.in_class.next = (a.class_code as u64).into();
    }
    crate::stream_handshake!();
    fn output(&self) -> Option<Translated> {
        self.out_valid.val().then(|| Translated {
            fault: self.out_fault.val().to_u32() as u8,
            device_address: self.out_device_address.val().to_u64(),
            device_bytes: self.out_device_bytes.val().to_u32() as u8,
            device_part_bytes: self.out_device_part_bytes.val().to_u32() as u8,
            buddy: self.out_buddy_valid.val().then(|| (self.out_buddy_address.val().to_u64(), self.out_buddy_bytes.val().to_u32() as u8)),
            metadata: self.out_metadata_valid.val().then(|| (self.out_metadata_address.val().to_u64(), self.out_metadata_high.val())),
        })
    }
}

/// Random registers: 47-bit bases (so nothing wraps), and a carve-out that
/// is either a whole number of 512 KiB units (slots can end exactly at its
/// end) or any size up to 64 GiB.
pub fn random_registers<R: Rng>(rng: &mut R) -> BuddyRegisters {
    let carve_out_bytes = if rng.gen_bool(0.5) { rng.gen_range(1u64..=(1 << 17)) << 19 } else { rng.gen_range(0u64..=(64 << 30)) };
    BuddyRegisters {
        gbbr: rng.gen_range(0u64..(1 << 47)),
        carve_out_bytes,
        md_base: rng.gen_range(0u64..(1 << 47)),
        heap_base: rng.gen_range(0u64..(1 << 47)),
    }
}

/// A random access under `regs`: mostly compressed pages with valid targets
/// and classes, addresses around HEAP_BASE, and buddy offsets around the
/// last units of the carve-out so that both sides of its end are reached;
/// about 1 in 8 have a reserved target code and 1 in 10 a reserved class.
pub fn random_access<R: Rng>(regs: &BuddyRegisters, rng: &mut R) -> Access {
    let page = if rng.gen_bool(0.5) { PageSize::Huge2M } else { PageSize::Small64K };
    let unit = page.bytes() / 4;
    let units = regs.carve_out_bytes / unit;
    let buddy_offset = match rng.gen_range(0..4) {
        0 => rng.gen_range(0u32..1 << 23),
        1 => units.saturating_sub(rng.gen_range(0..5)).min((1 << 23) - 1) as u32,
        _ => rng.gen_range(0..=units.min((1 << 23) - 1)) as u32,
    };
    let pte = Pte {
        frame: rng.gen_range(0u64..(1 << 47)),
        compressed: rng.gen_bool(0.85),
        target_code: if rng.gen_bool(0.125) { rng.gen_range(5..8) } else { rng.gen_range(0..5) },
        buddy_offset,
    };
    let va = match rng.gen_range(0..8) {
        // Just below HEAP_BASE (where it is not zero).
        0 => regs.heap_base.saturating_sub(rng.gen_range(1..=4 * page.bytes())),
        // The last entries of a page.
        1 => (regs.heap_base / page.bytes() + 1 + rng.gen_range(0u64..1 << 20)) * page.bytes() - rng.gen_range(1..=512),
        _ => regs.heap_base + rng.gen_range(0u64..1 << 40),
    };
    let class_code = if rng.gen_bool(0.1) { rng.gen_range(8..16) } else { rng.gen_range(0..8) };
    Access { regs: *regs, page, pte, va, class_code }
}

/// `n` random accesses sharing one random register set.
pub fn random_accesses<R: Rng>(n: usize, rng: &mut R) -> Vec<Access> {
    let regs = random_registers(rng);
    (0..n).map(|_| random_access(&regs, rng)).collect()
}

/// Co-simulation ports of `address_translator`: vector line = the
/// registers, the access, then the expected outputs.
pub const PORTS: CosimPorts = CosimPorts {
    module: "address_translator",
    inputs: &[
        ("gbbr", 64),
        ("carve_out_bytes", 64),
        ("md_base", 64),
        ("heap_base", 64),
        ("in_va", 64),
        ("in_frame", 64),
        ("in_pte", 27),
        ("in_page_64k", 1),
        ("in_class", 4),
    ],
    outputs: &[
        ("out_fault", 3),
        ("out_device_address", 64),
        ("out_device_bytes", 8),
        ("out_device_part_bytes", 8),
        ("out_buddy_valid", 1),
        ("out_buddy_address", 64),
        ("out_buddy_bytes", 8),
        ("out_metadata_valid", 1),
        ("out_metadata_address", 64),
        ("out_metadata_high", 1),
    ],
};

/// One `$readmemh` line: the access and the golden answer. Every line of
/// one file must share the registers (they are configuration inputs).
pub fn vector(a: &Access) -> String {
    let t = expected_translation(a);
    let (buddy_address, buddy_bytes) = t.buddy.unwrap_or_default();
    let (md_address, md_high) = t.metadata.unwrap_or_default();
    [
        hex_field(a.regs.gbbr, 64),
        hex_field(a.regs.carve_out_bytes, 64),
        hex_field(a.regs.md_base, 64),
        hex_field(a.regs.heap_base, 64),
        hex_field(a.va, 64),
        hex_field(a.pte.frame, 64),
        hex_field(a.pte.buddy_bits() as u64, 27),
        hex_field((a.page == PageSize::Small64K) as u64, 1),
        hex_field(a.class_code as u64, 4),
        hex_field(t.fault as u64, 3),
        hex_field(t.device_address, 64),
        hex_field(t.device_bytes as u64, 8),
        hex_field(t.device_part_bytes as u64, 8),
        hex_field(t.buddy.is_some() as u64, 1),
        hex_field(buddy_address, 64),
        hex_field(buddy_bytes as u64, 8),
        hex_field(t.metadata.is_some() as u64, 1),
        hex_field(md_address, 64),
        hex_field(md_high as u64, 1),
    ]
    .concat()
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the address translator.

/// The address translator as a delivered module.
pub mod delivered {
    use super::*;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::{run_stream, Traffic};
    use crate::waves::{block_ports, port_groups, Filter, SignalGroup};
    use buddy_golden::MemoryEntry;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// `address_translator`: one random access per entry (one register set).
    pub struct Translator;

    impl DeliveredModule for Translator {
        fn ports(&self) -> CosimPorts {
            PORTS
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Block
        }
        fn notes(&self) -> Vec<String> {
            vec![
                crate::interface::STREAM.to_string(),
                "Initiation interval 1. The GBBR, carve-out, metadata base and heap base inputs are registers the host sets \
                 before use (docs/formats.md#translation)."
                    .into(),
                format!(
                    "out_fault: 0 none, {} reserved target in the PTE, {} address below the heap base, {} buddy slot outside \
                     the carve-out, {} reserved size class.",
                    fault::RESERVED_TARGET,
                    fault::BELOW_HEAP_BASE,
                    fault::OUTSIDE_CARVE_OUT,
                    fault::RESERVED_CLASS
                ),
            ]
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            modules::emit(AddressTranslator::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VECTOR_SEED);
            vec![VectorFile::vectors(self.name(), random_accesses(entries.len(), &mut rng).iter().map(vector).collect())]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            let accesses = random_accesses(entries.len(), &mut ChaCha8Rng::seed_from_u64(seed));
            let expected: Vec<_> = accesses.iter().map(expected_translation).collect();
            modules::compare(self.name(), AddressTranslator::default(), &accesses, &expected, traffic, seed)
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VCD_SEED);
            let accesses = random_accesses(entries.len(), &mut rng);
            let max = modules::vcd_max_cycles(entries.len());
            run_stream(&mut AddressTranslator::default(), &accesses, Traffic::RANDOM, &mut rng, max, Some(&mut vcd));
            Ok(())
        }
        fn signal_groups(&self) -> Vec<SignalGroup> {
            let ports = block_ports(&AddressTranslator::default());
            let ports: Vec<&str> = ports.iter().map(String::as_str).collect();
            let rules: &[(&str, &[&str])] = &[
                ("registers", &["gbbr", "carve_out_bytes", "md_base", "heap_base"]),
                ("handshake in", &["clock", "reset", "in_valid", "in_ready"]),
                ("access in", &["in_*"]),
                ("handshake out, fault", &["out_valid", "out_ready", "out_fault"]),
                ("device slot out", &["out_device_*"]),
                ("buddy slot out", &["out_buddy_*"]),
                ("metadata out", &["out_metadata_*"]),
            ];
            port_groups(&ports, rules, &[("in_class", Filter::SizeClass), ("out_fault", Filter::Fault)])
        }
    }
}

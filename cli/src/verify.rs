//! `buddy verify`: check a stream file (`docs/streams.md`), e.g. one
//! written from a hardware compressor's output ports, against the entries it
//! should hold.
//!
//! Two checks per entry, in this order:
//! 1. **decode**: the golden decoder of the header's algorithm turns the
//!    record back into exactly the given entry (a stream that does not decode
//!    fails here too);
//! 2. **stream** (unless `--decode-only`): the record is bit for bit what the
//!    golden compressor stores for the given entry (same class, same stored
//!    bytes), which catches an encoder that still decodes correctly but does
//!    not follow the spec (another class, other bits past the stream's end).
//!
//! The first failing entry is reported with its index, its place in the
//! workload and the first differing bit; the exit is then non-zero.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use buddy_golden::{Algorithm, Codec, MemoryEntry, StreamRecord, ENTRY_BYTES};
use buddy_sim::Workload;
use rayon::prelude::*;

use crate::decompress::{locate, parse, BATCH};
use crate::input_file::InputFile;
use crate::output::outln;

/// Arguments of `buddy verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The stream file to check (docs/streams.md).
    #[arg(value_name = "STREAMS")]
    streams: PathBuf,
    /// The entries the streams should hold: a raw file of 128-byte entries
    /// or a workload folder (entries in the order `buddy compress --streams`
    /// writes them).
    #[arg(long, value_name = "ENTRIES|WORKLOAD")]
    entries: PathBuf,
    /// Only the snapshot with this manifest index of the workload.
    #[arg(long, value_name = "N")]
    snapshot: Option<usize>,
    /// Only check that every stream decodes to its entry, not that it is
    /// golden's stream bit for bit (for encoders that may choose other
    /// valid streams).
    #[arg(long)]
    decode_only: bool,
}

/// Why one entry fails.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Failure {
    /// The record does not decode.
    Decode(String),
    /// The record decodes, to another entry: the first differing byte.
    Decoded { byte: usize, decoded: u8, given: u8 },
    /// Golden compresses the entry to another class.
    Class { found: &'static str, golden: &'static str },
    /// Same class, other stored bits: the first differing bit.
    Stored { bit: usize, found: u8, golden: u8 },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Decode(reason) => write!(f, "the stream does not decode: {reason}"),
            Failure::Decoded { byte, decoded, given } => {
                let bit = (decoded ^ given).trailing_zeros() as usize;
                write!(
                    f,
                    "decodes to an entry that differs from the given one first at entry bit {} (byte {byte}, bit {bit}; word {}): decoded byte {decoded:#04x}, given {given:#04x}",
                    8 * byte + bit,
                    byte / 4
                )
            }
            Failure::Class { found, golden } => {
                write!(f, "decodes to the given entry, but has class {found} where golden's stream has class {golden}")
            }
            Failure::Stored { bit, found, golden } => write!(
                f,
                "decodes to the given entry, but differs from golden's stream first at stored bit {bit} (byte {}, bit {}): {found}, golden {golden}",
                bit / 8,
                bit % 8
            ),
        }
    }
}

/// Check one record against the entry it should hold.
fn check(record: &StreamRecord<'_>, given: &[u8; ENTRY_BYTES], codec: &dyn Codec, decode_only: bool) -> Option<Failure> {
    let decoded = match codec.decompress(record.class, record.stored) {
        Ok(entry) => entry.to_bytes(),
        Err(e) => return Some(Failure::Decode(e.to_string())),
    };
    if let Some(byte) = (0..ENTRY_BYTES).find(|&i| decoded[i] != given[i]) {
        return Some(Failure::Decoded { byte, decoded: decoded[byte], given: given[byte] });
    }
    if decode_only {
        return None;
    }
    let golden = codec.compress(&MemoryEntry::from_bytes(given));
    if golden.class != record.class {
        return Some(Failure::Class { found: record.class.name(), golden: golden.class.name() });
    }
    let stored = golden.stored();
    let byte = (0..stored.len()).find(|&i| stored[i] != record.stored[i])?;
    let bit = (stored[byte] ^ record.stored[byte]).trailing_zeros() as usize;
    Some(Failure::Stored { bit: 8 * byte + bit, found: (record.stored[byte] >> bit) & 1, golden: (stored[byte] >> bit) & 1 })
}

/// The entries of a workload in stream order, each with its place
/// (snapshot index, allocation name, index within the allocation).
fn entries_of(workload: &Workload) -> Vec<(&[u8; ENTRY_BYTES], usize, &str, usize)> {
    let mut entries = Vec::new();
    for snapshot in workload.snapshots() {
        for allocation in snapshot.allocations() {
            let (raw, _) = allocation.bytes().as_chunks::<ENTRY_BYTES>();
            let name = allocation.info().name.as_str();
            entries.extend(raw.iter().enumerate().map(|(i, bytes)| (bytes, snapshot.info().index, name, i)));
        }
    }
    entries
}

/// Run `buddy verify`: print `N entries verified ...`, or fail on the first
/// failing entry.
///
/// # Errors
/// The stream file or the entries cannot be read or are invalid; their
/// entry counts differ; an entry fails a check (the first one is named with
/// the reason and its first differing bit, and the number of failing
/// entries is given).
pub fn run(args: Args) -> anyhow::Result<()> {
    let workload = Workload::open(&args.entries).context("cannot open the entries")?;
    let workload = match args.snapshot {
        Some(index) => workload.select_snapshot(index).with_context(|| format!("--snapshot {index} of {}", args.entries.display()))?,
        None => workload,
    };
    let input = InputFile::open(&args.streams)?;
    let (header, records) = parse(&input, &args.streams)?;
    if header.entries != workload.entry_count() {
        bail!("{} holds {} entries but {} has {}", args.streams.display(), header.entries, args.entries.display(), workload.entry_count());
    }
    let entries = entries_of(&workload);
    let codec = header.algorithm.codec();
    let mut first: Option<(usize, Failure)> = None;
    let mut failing = 0u64;
    for (batch, given) in records.chunks(BATCH).zip(entries.chunks(BATCH)) {
        let failures: Vec<Option<Failure>> =
            batch.par_iter().zip(given).map(|(record, (bytes, ..))| check(record, bytes, codec.as_ref(), args.decode_only)).collect();
        for (i, failure) in failures.into_iter().enumerate() {
            if let Some(failure) = failure {
                failing += 1;
                if first.is_none() {
                    first = Some((batch[i].index as usize, failure));
                }
            }
        }
    }
    if let Some((index, failure)) = first {
        let (_, snapshot, allocation, entry) = entries[index];
        bail!(
            "{} = snapshot {snapshot}, allocation '{allocation}', entry {entry} of {}: {failure} ({failing} of {} entries fail)",
            locate(&records[index], &args.streams),
            args.entries.display(),
            header.entries
        );
    }
    outln!("{}", verified_line(header.entries, header.algorithm, args.decode_only, &args.entries))?;
    Ok(())
}

/// The line printed when every entry passes.
fn verified_line(entries: u64, algorithm: Algorithm, decode_only: bool, given: &Path) -> String {
    let checks = if decode_only {
        "every stream decodes to its entry"
    } else {
        "every stream decodes to its entry and is golden's stream bit for bit"
    };
    format!("{entries} entries verified ({algorithm}, against {}): {checks}", given.display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use buddy_golden::{SizeClass, Zvc};

    fn record<'a>(class: SizeClass, stored: &'a [u8]) -> StreamRecord<'a> {
        StreamRecord { index: 0, offset: 36, class, stored }
    }

    #[test]
    fn check_names_the_first_differing_bit() {
        let mut given = [0u8; ENTRY_BYTES];
        given[4] = 0x05;
        let golden = Zvc.compress(&MemoryEntry::from_bytes(&given));
        assert_eq!(check(&record(golden.class, golden.stored()), &given, &Zvc, false), None);

        // A flipped bit of the word's value: decodes to another entry.
        let mut stored = golden.stored().to_vec();
        stored[4] ^= 0x02;
        let failure = check(&record(golden.class, &stored), &given, &Zvc, false).unwrap();
        assert_eq!(failure, Failure::Decoded { byte: 4, decoded: 0x07, given: 0x05 });
        assert!(failure.to_string().contains("entry bit 33 (byte 4, bit 1; word 1)"), "{failure}");

        // The same stream in a larger class decodes, but is not golden's.
        let mut wide = golden.stored().to_vec();
        wide.resize(16, 0);
        assert_eq!(check(&record(SizeClass::B16, &wide), &given, &Zvc, false), Some(Failure::Class { found: "B16", golden: "B8" }));
        assert_eq!(check(&record(SizeClass::B16, &wide), &given, &Zvc, true), None);
    }

    #[test]
    fn check_reports_streams_that_do_not_decode() {
        let given = [0u8; ENTRY_BYTES];
        // A mask of 32 non-zero words in an 8-byte stream.
        let failure = check(&record(SizeClass::B8, &[0xff; 8]), &given, &Zvc, false).unwrap();
        assert!(matches!(failure, Failure::Decode(_)), "{failure:?}");
    }
}

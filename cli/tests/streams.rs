//! `buddy compress --streams`, `buddy decompress` and `buddy verify` run as
//! processes: round trips on the bundled workload and every shared one
//! (`../shared/data`, which must be there), single flipped bits caught, and
//! broken inputs.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{buddy, bundled, failure, stdout};

const ALGORITHMS: [&str; 6] = ["bpc", "bdi", "mag-bdi", "mag-bdi:16", "mag-bdi:64", "zvc"];

/// Bytes of the stream-file header (docs/streams.md).
const HEADER: usize = 36;

/// Stored bytes per class code.
const CLASS_BYTES: [usize; 8] = [0, 8, 16, 32, 64, 80, 96, 128];

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The entries of a workload folder in stream order: per snapshot in
/// manifest order, its allocations' padded bytes in manifest order.
fn workload_entries(folder: &Path) -> Vec<u8> {
    let manifest: Value = serde_json::from_slice(&fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    let mut bytes = Vec::new();
    for snapshot in manifest["snapshots"].as_array().unwrap() {
        let data = fs::read(folder.join(snapshot["file"].as_str().unwrap())).unwrap();
        for a in snapshot["allocations"].as_array().unwrap() {
            let offset = a["offset"].as_u64().unwrap() as usize;
            bytes.extend_from_slice(&data[offset..offset + a["padded_size"].as_u64().unwrap() as usize]);
        }
    }
    bytes
}

/// `buddy compress WORKLOAD --algo ALGO --streams DIR/NAME`; returns the stream file's path.
fn compress_streams(dir: &Path, workload: &Path, algorithm: &str, name: &str) -> PathBuf {
    let streams = dir.join(name);
    let out = buddy(&["compress", text(workload), "--algo", algorithm, "--streams", text(&streams)]);
    stdout(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("{algorithm} streams")), "{out:?}");
    streams
}

/// `buddy decompress STREAMS --out DIR/NAME`; returns the decoded bytes.
fn decompress(dir: &Path, streams: &Path, name: &str) -> Vec<u8> {
    let out = dir.join(name);
    stdout(&buddy(&["decompress", text(streams), "--out", text(&out)]));
    fs::read(out).unwrap()
}

/// (class code, offset of the class byte) of every record of a stream file.
fn records(file: &[u8]) -> Vec<(u8, usize)> {
    let mut offset = HEADER;
    let mut records = Vec::new();
    while offset < file.len() {
        records.push((file[offset], offset));
        offset += 1 + CLASS_BYTES[usize::from(file[offset])];
    }
    assert_eq!(offset, file.len());
    records
}

fn round_trip(workload: &Path) {
    let expected = workload_entries(workload);
    let dir = tempfile::tempdir().unwrap();
    for algorithm in ALGORITHMS {
        let streams = compress_streams(dir.path(), workload, algorithm, &format!("{algorithm}.streams"));
        let file = fs::read(&streams).unwrap();
        assert_eq!(&file[12..12 + algorithm.len()], algorithm.as_bytes());
        assert_eq!(records(&file).len() * 128, expected.len(), "{algorithm}");
        let decoded = decompress(dir.path(), &streams, &format!("{algorithm}.entries"));
        assert!(decoded == expected, "{algorithm}: decompress does not give the workload's entries back on {}", workload.display());
        let verified = stdout(&buddy(&["verify", text(&streams), "--entries", text(workload)]));
        assert!(verified.starts_with(&format!("{} entries verified ({algorithm}", expected.len() / 128)), "{verified}");
    }
}

#[test]
fn compress_then_decompress_returns_the_bundled_workload_for_every_algorithm() {
    round_trip(&bundled());
}

/// Every workload of `../shared/data` beside the repository (the test
/// fails, naming the folder, when it is missing or holds none).
#[test]
fn compress_then_decompress_returns_every_shared_workload() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    let folders = fs::read_dir(&shared)
        .unwrap_or_else(|e| panic!("{}: {e}; this test needs the shared workloads beside the repository", shared.display()));
    let mut folders: Vec<PathBuf> = folders.map(|f| f.unwrap().path()).filter(|p| p.join("manifest.json").is_file()).collect();
    assert!(!folders.is_empty(), "{} holds no workload (no manifest.json)", shared.display());
    folders.sort();
    for folder in folders {
        round_trip(&folder);
    }
}

#[test]
fn a_raw_file_round_trips_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("entries.bin");
    let data = fs::read(bundled().join("snap_05.bin")).unwrap();
    fs::write(&raw, &data).unwrap();
    let streams = compress_streams(dir.path(), &raw, "bpc", "s.bin");
    assert!(decompress(dir.path(), &streams, "back.bin") == data);
    // Verified against the raw file as well as the folder's snapshot.
    stdout(&buddy(&["verify", text(&streams), "--entries", text(&raw)]));
    stdout(&buddy(&["verify", text(&streams), "--entries", text(&bundled()), "--snapshot", "5"]));
}

#[test]
fn compress_defaults_to_bpc_streams() {
    let dir = tempfile::tempdir().unwrap();
    let streams = dir.path().join("s.bin");
    stdout(&buddy(&["compress", "--streams", text(&streams)]));
    assert_eq!(&fs::read(streams).unwrap()[8..28], b"\x01\x00\x00\x00bpc\0\0\0\0\0\0\0\0\0\0\0\0\0");
}

/// The golden BPC stream file of the bundled workload, its bytes and records.
fn golden_bpc() -> (tempfile::TempDir, PathBuf, Vec<u8>, Vec<(u8, usize)>) {
    let dir = tempfile::tempdir().unwrap();
    let streams = compress_streams(dir.path(), &bundled(), "bpc", "golden.bin");
    let file = fs::read(&streams).unwrap();
    let records = records(&file);
    (dir, streams, file, records)
}

/// `buddy verify` of `file` (written to `dir/name`) against the bundled workload.
fn verify_error(dir: &Path, name: &str, file: &[u8], extra: &[&str]) -> String {
    let path = dir.join(name);
    fs::write(&path, file).unwrap();
    let bundled = bundled();
    let mut args = vec!["verify", text(&path), "--entries", text(&bundled)];
    args.extend(extra);
    failure(&buddy(&args))
}

#[test]
fn verify_catches_a_flipped_payload_bit_that_changes_the_decode() {
    let (dir, _, golden, records) = golden_bpc();
    // A RAW record: its stored bytes are the entry, so bit 3 of stored byte 5 is entry bit 43.
    let (index, &(_, offset)) = records.iter().enumerate().find(|(_, (class, _))| *class == 7).expect("a RAW entry");
    let mut file = golden.clone();
    file[offset + 1 + 5] ^= 1 << 3;
    let err = verify_error(dir.path(), "raw-flip.bin", &file, &[]);
    assert!(err.contains(&format!("error: entry {index} of ")), "{err}");
    assert!(err.contains("decodes to an entry that differs from the given one first at entry bit 43 (byte 5, bit 3; word 1)"), "{err}");
    assert!(err.trim_end().ends_with("(1 of 6594 entries fail)"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    // The first stream bit of a compressed record: it decodes to another entry or not at all.
    let (index, &(class, offset)) = records.iter().enumerate().find(|(_, (class, _))| (1..7).contains(class)).unwrap();
    let mut file = golden;
    file[offset + 1] ^= 1;
    let err = verify_error(dir.path(), "stream-flip.bin", &file, &[]);
    assert!(
        err.contains(&format!("error: entry {index} of "))
            && err.contains(&format!("class {}", ["ZERO", "B8", "B16", "B32", "B64", "B80", "B96"][class as usize])),
        "{err}"
    );
    assert!(err.contains("does not decode") || err.contains("decodes to an entry that differs"), "{err}");
}

#[test]
fn verify_catches_a_flipped_class_bit() {
    let (dir, _, golden, records) = golden_bpc();
    // Every class has its own length, so a flipped class bit breaks the
    // records from there on (or, by chance, the decode): never passes.
    for (i, &(_, offset)) in records.iter().enumerate().step_by(997) {
        for bit in 0..3 {
            let mut file = golden.clone();
            file[offset] ^= 1 << bit;
            let err = verify_error(dir.path(), "class-flip.bin", &file, &[]);
            assert_eq!(err.lines().count(), 1, "entry {i} bit {bit}: {err}");
        }
    }
    // A high bit of the class byte: a reserved class, named with its entry.
    let (index, &(class, offset)) = records.iter().enumerate().nth(100).unwrap();
    let mut file = golden;
    file[offset] ^= 0x80;
    let err = verify_error(dir.path(), "high-bit.bin", &file, &[]);
    assert!(err.contains(&format!("entry {index} (byte {offset}): class byte {:#04x} is not a size class", class ^ 0x80)), "{err}");
}

#[test]
fn verify_catches_an_encoder_bug_that_still_decodes() {
    let (dir, _, golden, records) = golden_bpc();
    // An entry whose BPC stream ends before its class does: the bits after
    // the stream's end are zero in golden's stream and ignored by the decoder.
    let per_entry = stdout(&buddy(&["compress", "--per-entry", "--algo", "bpc"]));
    let (index, bits) = per_entry
        .lines()
        .skip(1)
        .enumerate()
        .map(|(i, line)| (i, line.split('\t').nth(3).unwrap().parse::<usize>().unwrap()))
        .find(|&(i, bits)| bits > 0 && bits < 8 * CLASS_BYTES[usize::from(records[i].0)])
        .expect("a stream shorter than its class");
    let last_bit = 8 * CLASS_BYTES[usize::from(records[index].0)] - 1;
    assert!(last_bit >= bits);
    let mut file = golden;
    file[records[index].1 + 1 + last_bit / 8] ^= 0x80;
    let err = verify_error(dir.path(), "padding-flip.bin", &file, &[]);
    assert!(
        err.contains(&format!("error: entry {index} of "))
            && err.contains(&format!("decodes to the given entry, but differs from golden's stream first at stored bit {last_bit}")),
        "{err}"
    );
    // Checking the decode only accepts it.
    let path = dir.path().join("padding-flip.bin");
    let ok = stdout(&buddy(&["verify", text(&path), "--entries", text(&bundled()), "--decode-only"]));
    assert!(ok.contains("6594 entries verified (bpc") && ok.contains("every stream decodes to its entry\n"), "{ok}");
}

#[test]
fn verify_reports_an_entry_count_mismatch() {
    let (dir, streams, _, _) = golden_bpc();
    let err = failure(&buddy(&["verify", text(&streams), "--entries", text(&bundled()), "--snapshot", "0"]));
    assert!(err.contains("holds 6594 entries but") && err.contains("has 3297"), "{err}");
    drop(dir);
}

#[test]
fn bad_stream_files_give_one_error_line() {
    let (dir, _, golden, _) = golden_bpc();
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("truncated", golden[..golden.len() - 3].to_vec(), "the file ends at byte"),
        ("magic", [b"XUDDYSTR", &golden[8..]].concat(), "not a buddy stream file"),
        ("version", [&golden[..8], &[9, 0], &golden[10..]].concat(), "stream file version 9 is not supported"),
        ("trailing", [&golden[..], &[0]].concat(), "1 bytes follow the last of the 6594 entries"),
        ("empty", Vec::new(), "the file ends at byte 0 inside the header"),
    ];
    for (name, file, message) in cases {
        let path = dir.path().join(name);
        fs::write(&path, &file).unwrap();
        let err = failure(&buddy(&["decompress", text(&path), "--out", text(&dir.path().join(format!("{name}.out")))]));
        assert!(err.starts_with(&format!("error: invalid stream file {}: ", path.display())) && err.contains(message), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!dir.path().join(format!("{name}.out")).exists(), "{name}: no partial output");
        let err = verify_error(dir.path(), name, &file, &[]);
        assert!(err.contains(message), "{name}: {err}");
    }
}

#[test]
fn a_stream_that_does_not_decode_is_named_by_decompress() {
    let (dir, _, golden, records) = golden_bpc();
    // A B8 record of all-ones bytes does not decode under BPC.
    let (index, &(_, offset)) = records.iter().enumerate().find(|(_, (class, _))| *class == 1).unwrap();
    let mut file = golden;
    file[offset + 1..offset + 9].fill(0xff);
    let path = dir.path().join("bad.bin");
    fs::write(&path, &file).unwrap();
    let out = dir.path().join("out.bin");
    let err = failure(&buddy(&["decompress", text(&path), "--out", text(&out)]));
    assert!(err.starts_with(&format!("error: entry {index} of {} (byte {offset}, class B8): BPC", path.display())), "{err}");
    assert!(!out.exists());
    let err = verify_error(dir.path(), "bad.bin", &file, &[]);
    assert!(err.contains(&format!("entry {index} of")) && err.contains("the stream does not decode: BPC"), "{err}");
}

#[test]
fn streams_take_one_algorithm_and_one_workload() {
    let dir = tempfile::tempdir().unwrap();
    let streams = dir.path().join("s.bin");
    let err = failure(&buddy(&["compress", "--algo", "bpc,zvc", "--streams", text(&streams)]));
    assert!(err.contains("--streams writes the streams of one algorithm, but --algo gives 2 (bpc, zvc)"), "{err}");
    let err = failure(&buddy(&["compress", text(&bundled()), text(&bundled()), "--streams", text(&streams)]));
    assert!(err.contains("--streams writes the streams of one workload, but 2 are given"), "{err}");
    assert!(!streams.exists());
}

#[test]
fn outputs_are_not_overwritten_without_force() {
    let (dir, streams, golden, _) = golden_bpc();
    // buddy wrote it and nobody changed it: a second run replaces it.
    stdout(&buddy(&["compress", "--algo", "zvc", "--streams", text(&streams)]));
    assert_ne!(fs::read(&streams).unwrap(), golden);
    // Once changed by someone else it needs --force.
    fs::write(&streams, &golden).unwrap();
    let err = failure(&buddy(&["compress", "--streams", text(&streams)]));
    assert!(err.contains("exists; pass --force to replace it"), "{err}");
    stdout(&buddy(&["compress", "--algo", "zvc", "--streams", text(&streams), "--force"]));
    assert_ne!(fs::read(&streams).unwrap(), golden);

    let out = dir.path().join("entries.bin");
    fs::write(&out, b"keep").unwrap();
    let err = failure(&buddy(&["decompress", text(&streams), "--out", text(&out)]));
    assert!(err.contains("exists; pass --force to replace it"), "{err}");
    assert_eq!(fs::read(&out).unwrap(), b"keep");
    stdout(&buddy(&["decompress", text(&streams), "--out", text(&out), "--force"]));
    assert_eq!(fs::read(&out).unwrap().len(), 6594 * 128);

    let err = failure(&buddy(&["decompress", text(&streams), "--out", text(dir.path())]));
    assert!(err.contains("exists and is not a regular file"), "{err}");
    let missing = dir.path().join("no/such/folder/e.bin");
    let err = failure(&buddy(&["decompress", text(&streams), "--out", text(&missing)]));
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn inputs_that_are_not_regular_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e.bin");
    let err = failure(&buddy(&["decompress", "/dev/zero", "--out", text(&out)]));
    assert!(err.contains("/dev/zero is not a regular file"), "{err}");
    let err = failure(&buddy(&["verify", "/dev/zero", "--entries", text(&bundled())]));
    assert!(err.contains("/dev/zero is not a regular file"), "{err}");
    let err = failure(&buddy(&["verify", text(&out), "--entries", "/dev/zero"]));
    assert!(err.contains("/dev/zero is a character device, not a regular file"), "{err}");
    let err = failure(&buddy(&["decompress", text(&dir.path().join("missing.bin")), "--out", text(&out)]));
    assert!(err.contains("cannot read") && err.contains("missing.bin"), "{err}");
}

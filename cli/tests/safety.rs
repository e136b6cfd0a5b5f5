//! Issue #23's failures, each reproduced: bad input and bad output paths
//! are found before any work and give one `error:` line and a non-zero
//! exit; nothing panics or aborts; a failed run leaves no outputs.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{buddy, bundled, bundled_copy_with_trace, edit_json, failure, stdout};

/// Run `buddy` with stdout on `/dev/full` (a full disk).
fn to_full_disk(args: &[&str], cwd: &Path) -> String {
    let full = fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let out = Command::new(env!("CARGO_BIN_EXE_buddy")).args(args).current_dir(cwd).stdout(full).output().unwrap();
    assert!(!out.status.success(), "{args:?} should fail on a full disk");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("error: ") && l.contains("No space left")), "{args:?}: {stderr}");
    stderr
}

#[test]
fn a_truncated_trace_fails_before_any_output() {
    let dir = bundled_copy_with_trace();
    let trace = dir.path().join("trace.bin");
    let bytes = fs::read(&trace).unwrap();
    fs::write(&trace, &bytes[..bytes.len() - 5]).unwrap();
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("run");
    let err = failure(&buddy(&["run", dir.path().to_str().unwrap(), "--out", target.to_str().unwrap()]));
    assert!(err.contains("not a whole number of 12-byte records"), "{err}");
    assert!(!target.exists(), "a failed run leaves no output folder");
    assert_eq!(fs::read_dir(out.path()).unwrap().count(), 0, "and no staging folder");
}

#[test]
fn output_paths_are_checked_before_the_work() {
    let err = failure(&buddy(&["equiv", "--vcd-dir", "/proc/x"]));
    assert!(err.contains("cannot write into /proc"), "{err}");
    // A user's folder or file is not replaced without --force.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let err = failure(&buddy(&["sim", "--mode", "uncompressed", "--out", dir.path().to_str().unwrap()]));
    assert!(err.contains("--force"), "{err}");
    let err = failure(&buddy(&["verilog", "--out", dir.path().to_str().unwrap()]));
    assert!(err.contains("--force"), "{err}");
    let ann = dir.path().join("notes.txt");
    let err = failure(&buddy(&["profile", "--out", ann.to_str().unwrap()]));
    assert!(err.contains("exists; pass --force"), "{err}");
    assert_eq!(fs::read_to_string(&ann).unwrap(), "mine");
    stdout(&buddy(&["sim", "--mode", "uncompressed", "--out", dir.path().to_str().unwrap(), "--force"]));
    assert_eq!(fs::read_to_string(&ann).unwrap(), "mine", "--force replaces only what the command writes");
    assert!(dir.path().join("sim.json").is_file());
}

#[test]
fn size_like_inputs_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    for (toml, key) in [
        ("[l2]\nbytes = 1099511627776\n", "l2.bytes"),
        ("[system]\nslices = 100000\n", "system.slices"),
        ("[nvlink]\nheader_bytes = 100000000\n", "nvlink.header_bytes"),
    ] {
        let config = dir.path().join("c.toml");
        fs::write(&config, toml).unwrap();
        let err = failure(&buddy(&["sim", "--config", config.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()]));
        assert!(err.contains(key), "{err}");
    }
    let w = bundled_copy_with_trace();
    edit_json(w.path(), "trace_meta.json", |m| m["allocations"][0]["size"] = 10_000_000_000_000u64.into());
    let err = failure(&buddy(&["sim", w.path().to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()]));
    assert!(err.contains("at most 4294967296 bytes"), "{err}");
    let err = failure(&buddy(&["vectors", "--random", "18446744073709551615", "--out", dir.path().join("v").to_str().unwrap()]));
    assert!(err.contains("MAX_VECTORS"), "{err}");
    assert!(!dir.path().join("v").exists());
}

#[test]
fn an_empty_trace_and_annotation_typos_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let w = bundled_copy_with_trace();
    fs::write(w.path().join("trace.bin"), b"").unwrap();
    let err = failure(&buddy(&["sim", w.path().to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()]));
    assert!(err.contains("holds no records"), "{err}");
    let ann = dir.path().join("a.json");
    fs::write(&ann, r#"{"format": "buddy-targets/1", "workload": "minife", "default_targte": "4x", "allocations": []}"#).unwrap();
    let err = failure(&buddy(&["sim", "--annotation", ann.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()]));
    assert!(err.contains("unknown field `default_targte`"), "{err}");
}

#[test]
fn write_errors_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let w = bundled();
    let w = w.to_str().unwrap();
    to_full_disk(&["sim", w, "--mode", "uncompressed", "--out", "s"], dir.path());
    to_full_disk(&["mdcache", w, "--sizes", "4K"], dir.path());
    to_full_disk(&["profile", w, "--out", "p.json"], dir.path());
    to_full_disk(&["study", "heatmap", w, "--out", "st"], dir.path());
    to_full_disk(&["vectors", w, "--random", "10", "--boundary", "10", "--out", "v"], dir.path());
}

#[test]
fn a_copied_binary_finds_its_bundled_workload_and_writes_where_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("buddy");
    fs::copy(env!("CARGO_BIN_EXE_buddy"), &exe).unwrap();
    let cache = dir.path().join("cache");
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let run = |args: &[&str]| {
        let command = || {
            Command::new(&exe)
                .args(args)
                .current_dir(&work)
                .env_remove("BUDDY_DATA")
                .env("XDG_CACHE_HOME", &cache)
                .stdin(Stdio::null())
                .output()
        };
        // Another test thread forking while the copy was open for writing
        // holds it open a moment (Linux reports the file busy): try again.
        let mut tries = 0;
        loop {
            match command() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                other => break other.unwrap(),
            }
        }
    };
    let text = stdout(&run(&["sim", "--mode", "uncompressed"]));
    assert!(text.contains("results: out/sim"), "{text}");
    assert!(work.join("out/sim/summary.txt").is_file(), "summary.txt is written by the fast engine too");
    let copies: Vec<_> = fs::read_dir(cache.join("buddy")).unwrap().collect();
    assert_eq!(copies.len(), 1, "the embedded workload is written once into the cache");
    stdout(&run(&["verilog"]));
    assert!(work.join("verilog-out/zvc_compressor.v").is_file(), "buddy verilog writes into the current folder");
    // BUDDY_DATA names the data folder explicitly.
    let out = Command::new(&exe).args(["sim", "--mode", "uncompressed"]).current_dir(&work).env("BUDDY_DATA", dir.path()).output().unwrap();
    assert!(failure(&out).contains("BUDDY_DATA"));
}

#[test]
fn inputs_that_are_not_regular_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let out = out.to_str().unwrap();
    for args in [
        vec!["sim", "--config", "/dev/zero", "--out", out],
        vec!["sim", "--annotation", "/dev/zero", "--out", out],
        vec!["dram", "/dev/zero"],
    ] {
        let err = failure(&buddy(&args));
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    let err = failure(&buddy(&["study", "bandwidth-sweep", "--link-gbps", "0", "--out", out]));
    assert!(err.contains("--link-gbps 0") && err.contains("nvlink.gbps"), "{err}");
}

/// Progress bars draw when stderr is a terminal (`script` gives the command
/// one; it is in Debian's essential `bsdutils`).
#[test]
fn long_commands_draw_progress_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v");
    let raw = dir.path().join("e.bin");
    fs::write(&raw, &fs::read(bundled().join("snap_00.bin")).unwrap()[..128 * 16]).unwrap();
    let command = format!("{} vectors {} --random 10 --boundary 10 --out {}", env!("CARGO_BIN_EXE_buddy"), raw.display(), out.display());
    let run = Command::new("script").args(["-qc", &command, "/dev/null"]).output().expect("script (bsdutils)");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{text}");
    assert!(text.contains("golden vectors") && text.contains("modules ("), "{text}");
    // Without a terminal nothing is drawn.
    let quiet = buddy(&["vectors", raw.to_str().unwrap(), "--random", "10", "--boundary", "10", "--out", out.to_str().unwrap()]);
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("modules ("));
}

#[test]
fn a_command_run_twice_replaces_its_own_output() {
    // `buddy profile` writes <workload>.targets.json into the current folder.
    let dir = tempfile::tempdir().unwrap();
    let run = || Command::new(env!("CARGO_BIN_EXE_buddy")).arg("profile").current_dir(dir.path()).output().unwrap();
    let first = stdout(&run());
    let written: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name().into_string().unwrap()).collect();
    let annotation = written.iter().find(|n| n.ends_with(".targets.json")).expect("an annotation file");
    assert_eq!(stdout(&run()), first, "the second run replaces the first one's file");
    // Once the user edits the file it is theirs: only --force replaces it.
    let path = dir.path().join(annotation);
    fs::write(&path, "{}").unwrap();
    let err = failure(&run());
    assert!(err.contains("exists; pass --force"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "{}");
}

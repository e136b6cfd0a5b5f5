//! The quick formal proofs of `verilog-out/` (formal/formal.py --quick,
//! docs/formal.md): the smallest codec module's stream-protocol proof must
//! be PROVED and its flipped-gate mutant must FAIL. `make formal` runs every
//! proof. Fails with the script's message when yosys or yosys-abc is missing.

use std::path::Path;
use std::process::Command;

#[test]
fn quick_proofs_pass_and_the_mutant_fails() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("testbenches/ sits in the workspace");
    let work = root.join("target/formal-quick");
    let out = Command::new("python3")
        .current_dir(root)
        .args(["formal/formal.py", "--quick", "--work"])
        .arg(&work)
        .output()
        .expect("python3 runs formal/formal.py (Debian's python3)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "formal/formal.py --quick failed (exit {:?}):\n{stdout}\n{stderr}", out.status.code());
    // One line per proof: name, result, ...; the script already compares each
    // result with its expectation, this checks it ran what it should.
    let results: Vec<(&str, &str)> = stdout
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?, w.next()?))
        })
        .filter(|(name, _)| name.contains('/'))
        .collect();
    let proofs: Vec<_> = results.iter().filter(|(n, _)| !n.starts_with("mutant/")).collect();
    let mutants: Vec<_> = results.iter().filter(|(n, _)| n.starts_with("mutant/")).collect();
    assert!(!proofs.is_empty() && !mutants.is_empty(), "no proof or no mutant ran:\n{stdout}");
    for (name, result) in proofs {
        assert!(*result == "PROVED" || *result == "PASSED", "{name}: {result}, expected PROVED or PASSED:\n{stdout}");
    }
    for (name, result) in mutants {
        assert_eq!(*result, "FAILED", "{name}: the broken copy was not caught:\n{stdout}");
    }
}

//! cDMA's offload windows on real memory: every 4 KB window of the bundled
//! miniFE snapshots (and of `../shared/data` when it is there) round-trips
//! through ZVC, RL and zlib, and the sizes agree with the streams.

use buddy_golden::offload_window::{compress, compressed_bytes, decompress, WindowAlgorithm, WINDOW_BYTES};
use std::path::Path;

fn snapshots() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("data/minife-small/snap_00.bin"), root.join("data/minife-small/snap_05.bin")];
    // One snapshot of each shared workload, when the shared data is present.
    for w in ["hpgmg", "minife", "minilm_train"] {
        let p = root.join("../shared/data").join(w).join("snap_00.bin");
        if p.is_file() {
            files.push(p);
        }
    }
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

#[test]
fn every_window_of_real_snapshots_round_trips() {
    let mut windows = 0;
    let mut stored = [0usize; 3];
    let mut total = 0;
    for bytes in snapshots() {
        assert_eq!(bytes.len() % 128, 0);
        for window in bytes.chunks(WINDOW_BYTES) {
            windows += 1;
            total += window.len();
            for (k, a) in WindowAlgorithm::ALL.into_iter().enumerate() {
                let s = compress(a, window).unwrap();
                assert_eq!(s.len(), compressed_bytes(a, window).unwrap(), "{a:?}");
                assert_eq!(decompress(a, &s, window.len()).unwrap(), window, "{a:?} window {windows}");
                stored[k] += s.len();
            }
        }
    }
    assert!(windows >= 200, "{windows}");
    // miniFE's snapshots hold many zeros: every algorithm compresses them.
    for (k, a) in WindowAlgorithm::ALL.into_iter().enumerate() {
        assert!(stored[k] < total, "{a:?}: {} of {total}", stored[k]);
    }
}

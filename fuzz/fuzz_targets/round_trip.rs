//! Any 128 bytes: every algorithm's decompress(compress(e)) == e.
#![no_main]
use buddy_golden::{Algorithm, MemoryEntry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = [0u8; 128];
    let n = data.len().min(128);
    bytes[..n].copy_from_slice(&data[..n]);
    let e = MemoryEntry::from_bytes(&bytes);
    for a in Algorithm::ALL {
        let codec = a.codec();
        let c = codec.compress(&e);
        assert_eq!(codec.decompress(c.class, c.stored()), Ok(e), "{a}");
    }
});

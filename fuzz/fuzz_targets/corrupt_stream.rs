//! Any bytes as stored data of any size code: every decoder returns an entry
//! or an error, never a panic.
#![no_main]
use buddy_golden::{bpc, Algorithm};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&code, stored)) = data.split_first() else { return };
    for a in Algorithm::ALL {
        let _ = a.codec().decompress_code(code & 0xf, stored);
    }
    let _ = bpc::decode(stored);
});

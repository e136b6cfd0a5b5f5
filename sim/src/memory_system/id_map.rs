//! Maps keyed by sequential ids (tickets, tasks).

use std::collections::HashMap;

/// A hasher for sequential ids (Fibonacci hashing): `std`'s SipHash costs
/// more than the map lookups it serves here.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64) ^ (self.0 >> 56);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
}

/// A map keyed by sequential ids.
pub type IdMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<IdHasher>>;

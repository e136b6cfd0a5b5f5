//! The golden metadata cache against a flat array of nibbles: any sequence
//! of reads and writes returns the last value written, and after a flush
//! memory equals the flat array (docs/formats.md#metadata-cache).

use buddy_golden::metadata_cache::{MetadataCache, MetadataCacheConfig, Outcome};
use buddy_golden::translation::MetadataNibble;
use proptest::prelude::*;

/// Small geometries so that evictions are frequent.
fn config() -> impl Strategy<Value = MetadataCacheConfig> {
    (0u32..3, 0u32..3, 0u32..2, 1usize..9).prop_map(|(sets_log, ways_log, sector_log, slices)| {
        let ways = 1 << ways_log;
        let line_bytes = 128;
        let sector_bytes = 32 << sector_log;
        MetadataCacheConfig { size_bytes: (1 << sets_log) * ways * line_bytes, ways, line_bytes, sector_bytes, slices }
    })
}

#[derive(Debug, Clone)]
enum Op {
    Read(u64),
    Write(u64, u8),
}

fn ops(region_nibbles: u64) -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![(0..region_nibbles).prop_map(Op::Read), (0..region_nibbles, 0u8..16).prop_map(|(n, v)| Op::Write(n, v))],
        1..400,
    )
}

fn nibble(n: u64) -> MetadataNibble {
    MetadataNibble { address: n / 2, high: n % 2 == 1 }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn behaves_like_a_flat_nibble_array(config in config(), ops in ops(4096), init in proptest::collection::vec(any::<u8>(), 2048)) {
        let mut memory = init.clone();
        let mut flat: Vec<u8> = init.iter().flat_map(|b| [b & 0xf, b >> 4]).collect();
        let mut cache = MetadataCache::new(config).unwrap();
        for op in &ops {
            match *op {
                Op::Read(n) => prop_assert_eq!(cache.read_nibble(nibble(n), &mut memory).0, flat[n as usize]),
                Op::Write(n, v) => {
                    cache.write_nibble(nibble(n), v, &mut memory);
                    flat[n as usize] = v;
                }
            }
        }
        let s = cache.stats();
        prop_assert_eq!(s.hits + s.sector_misses + s.line_misses, ops.len() as u64);
        prop_assert_eq!(s.fills, s.sector_misses + s.line_misses);
        cache.flush(&mut memory);
        let image: Vec<u8> = flat.chunks(2).map(|p| p[0] | (p[1] << 4)).collect();
        prop_assert_eq!(memory, image);
    }

    /// A repeated access to the same nibble right after a first one is a hit.
    #[test]
    fn second_access_hits(config in config(), n in 0u64..4096) {
        let mut memory = vec![0u8; 2048];
        let mut cache = MetadataCache::new(config).unwrap();
        cache.read_nibble(nibble(n), &mut memory);
        prop_assert_eq!(cache.read_nibble(nibble(n), &mut memory).1, Outcome::Hit);
    }
}

//! Device-level request streams (`shared/ref/dram/README.md` format) and
//! their run through the HBM2 model with every request admitted at its
//! arrival cycle: what `buddy dram` prints and what the DRAMsim3
//! validation compares.
//!
//! A stream is a sequence of 16-byte little-endian records, gzip-compressed
//! or plain: `u64` arrival cycle, `u8` channel, `u8` bank group, `u8` bank
//! in the group, `u8` 1 = write / 0 = read, `u16` row, `u8` 32-byte column
//! in the row, `u8` zero. Coordinates are final (no address mapping).

use std::io::Read;
use std::path::Path;

use serde::Serialize;
use thiserror::Error;

use super::channel::{Channel, ChannelStats, Completion, Request};
use super::timing::HbmTiming;
use crate::config::SimConfig;

/// Bytes of one stream record.
pub const RECORD_BYTES: usize = 16;

/// A stream that cannot be used.
#[derive(Debug, Error)]
pub enum StreamError {
    #[error("cannot read stream {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("stream {path}: {bytes} bytes is not a whole number of {RECORD_BYTES}-byte records (truncated?)")]
    Truncated { path: String, bytes: usize },
    #[error("stream {path}: record {index}: {what}")]
    Record { path: String, index: usize, what: String },
    #[error("stream {path} holds no request")]
    Empty { path: String },
}

/// One record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamRequest {
    pub arrival: u64,
    pub channel: u8,
    pub bank_group: u8,
    pub bank: u8,
    pub write: bool,
    pub row: u16,
    pub column: u8,
}

/// Read a stream file (gzip when it starts with the gzip magic) and check
/// every record against the channels and geometry of `config`.
///
/// # Errors
/// [`StreamError`]: unreadable, truncated, empty, a coordinate outside the
/// device, a non-zero pad byte, a write flag other than 0/1, or arrivals
/// out of order (each error names the record).
pub fn read_stream(path: &Path, config: &SimConfig) -> Result<Vec<StreamRequest>, StreamError> {
    let p = path.display().to_string();
    let raw = crate::input_file::read(path).map_err(|source| StreamError::Read { path: p.clone(), source })?;
    let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|source| StreamError::Read { path: p.clone(), source })?;
        out
    } else {
        raw
    };
    parse_stream(&bytes, &p, config)
}

/// [`read_stream`] on bytes already in memory (`path` names them in errors).
///
/// # Errors
/// As [`read_stream`].
pub fn parse_stream(bytes: &[u8], path: &str, config: &SimConfig) -> Result<Vec<StreamRequest>, StreamError> {
    if bytes.len() % RECORD_BYTES != 0 {
        return Err(StreamError::Truncated { path: path.into(), bytes: bytes.len() });
    }
    if bytes.is_empty() {
        return Err(StreamError::Empty { path: path.into() });
    }
    let h = &config.hbm;
    let channels = (config.system.slices * h.channels_per_slice) as u64;
    let columns = h.row_bytes / 32;
    let mut out = Vec::with_capacity(bytes.len() / RECORD_BYTES);
    let mut last = 0;
    for (index, r) in bytes.chunks_exact(RECORD_BYTES).enumerate() {
        let bad = |what: String| StreamError::Record { path: path.into(), index, what };
        let s = StreamRequest {
            arrival: u64::from_le_bytes(r[0..8].try_into().expect("8 bytes")),
            channel: r[8],
            bank_group: r[9],
            bank: r[10],
            write: r[11] == 1,
            row: u16::from_le_bytes([r[12], r[13]]),
            column: r[14],
        };
        if r[11] > 1 {
            return Err(bad(format!("write flag {} (must be 0 or 1)", r[11])));
        }
        if r[15] != 0 {
            return Err(bad(format!("byte 15 is {} (must be zero)", r[15])));
        }
        if s.channel as u64 >= channels {
            return Err(bad(format!("channel {} (the configuration has {channels})", s.channel)));
        }
        if s.bank_group as u32 >= h.bank_groups || s.bank as u32 >= h.banks_per_group {
            return Err(bad(format!(
                "bank group {} bank {} (the configuration has {} x {})",
                s.bank_group, s.bank, h.bank_groups, h.banks_per_group
            )));
        }
        if s.row as u64 >= h.rows || s.column as u64 >= columns {
            return Err(bad(format!("row {} column {} (the configuration has {} rows of {columns} columns)", s.row, s.column, h.rows)));
        }
        if s.arrival < last {
            return Err(bad(format!("arrival cycle {} is before the previous record's {last}", s.arrival)));
        }
        last = s.arrival;
        out.push(s);
    }
    Ok(out)
}

/// What a stream run measured (the JSON keys of `buddy dram --json`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StreamReport {
    pub requests: u64,
    pub writes: u64,
    /// Last completion, DRAM cycles.
    pub end_cycle: u64,
    /// requests x 32 B / (end_cycle x tCK), GB/s (10^9 B/s).
    pub bandwidth_gbps: f64,
    /// Arrival to completion, DRAM cycles.
    pub mean_latency_cycles: f64,
    pub p99_latency_cycles: f64,
    /// Column commands that found their row open and already used / all column commands.
    pub row_hit_rate: f64,
    pub activations: u64,
    /// All-bank refreshes of all channels before `end_cycle`.
    pub refreshes: u64,
    /// Every command count, summed over the channels.
    pub commands: ChannelStats,
}

/// Run `stream` through one HBM2 controller per channel of `config`,
/// every request admitted to its channel's front end at its arrival cycle
/// (channels are independent, so each runs on its own).
pub fn run_stream(stream: &[StreamRequest], config: &SimConfig) -> StreamReport {
    let timing = HbmTiming::new(&config.hbm);
    let channels = (config.system.slices * config.hbm.channels_per_slice) as usize;
    let mut ctls: Vec<Channel> = (0..channels).map(|_| Channel::new(&timing)).collect();
    // Each front end holds its whole share of the stream at once: sized up
    // front, it is not regrown (and copied) on the way.
    let mut share = vec![0usize; channels];
    for s in stream {
        share[s.channel as usize] += 1;
    }
    for (ch, &n) in ctls.iter_mut().zip(&share) {
        ch.reserve(n);
    }
    for (id, s) in stream.iter().enumerate() {
        ctls[s.channel as usize].push(Request {
            id: id as u64,
            arrival: s.arrival,
            bank: (s.bank_group as usize * timing.banks_per_group + s.bank as usize) as u16,
            row: s.row as u32,
            column: s.column as u16,
            write: s.write,
        });
    }
    // Only the latencies and the last cycle are kept, channel by channel
    // (a small completion buffer instead of one for the whole stream).
    let mut lat: Vec<u64> = Vec::with_capacity(stream.len());
    let mut done: Vec<Completion> = Vec::new();
    let mut end = 0;
    for ch in &mut ctls {
        ch.drain(&mut done);
        for c in done.drain(..) {
            end = end.max(c.cycle);
            lat.push(c.cycle - c.arrival);
        }
    }
    // Refreshes go on in every channel until the last completion.
    let mut commands = ChannelStats::default();
    for ch in &mut ctls {
        if ch.now() < end {
            ch.run_until(end, &mut done);
        }
        commands += ch.stats;
    }
    lat.extend(done.iter().map(|c| c.cycle - c.arrival));
    let n = lat.len().max(1);
    // The 99th percentile of the sorted latencies, without sorting them all.
    let k = ((lat.len() as f64 * 0.99).ceil() as usize).saturating_sub(1);
    let p99 = if k < lat.len() { *lat.select_nth_unstable(k).1 } else { 0 };
    let column = commands.reads + commands.writes;
    let tck_ns = 1e3 / config.hbm.clock_mhz;
    StreamReport {
        requests: lat.len() as u64,
        writes: stream.iter().filter(|s| s.write).count() as u64,
        end_cycle: end,
        bandwidth_gbps: if end == 0 { 0.0 } else { lat.len() as f64 * 32.0 / (end as f64 * tck_ns) },
        mean_latency_cycles: lat.iter().sum::<u64>() as f64 / n as f64,
        p99_latency_cycles: p99 as f64,
        row_hit_rate: if column == 0 { 0.0 } else { commands.row_hits as f64 / column as f64 },
        activations: commands.activations,
        refreshes: commands.refreshes,
        commands,
    }
}

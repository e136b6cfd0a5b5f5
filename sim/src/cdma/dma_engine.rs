//! The compressing DMA engine's offload path (seed `003_*`, Sec. V-B, Fig. 9):
//! a request launcher reads 128-byte lines from GPU DRAM through the
//! (de)compression units at the memory controllers, the compressed lines
//! wait in the engine's response buffer, and the host link (PCIe) drains
//! the buffer in order.
//!
//! The model is event-exact at line granularity, in nanoseconds:
//!
//! - The launcher issues one line read every `128 / read_gbps` ns at most
//!   (`COMP_BW`, the DRAM bandwidth cDMA may draw), and only when the buffer
//!   can take the line's worst case ([`LINE_RESERVATION_BYTES`]): it does not
//!   know a line's compressed size before the data returns (the paper's
//!   reason for sizing the buffer by bandwidth x latency).
//! - A line arrives `request_latency_ns` after its request; its reservation
//!   then shrinks to its stored bytes.
//! - The link sends the lines in request order at `pcie_gbps`; a line's
//!   bytes leave the buffer when its transfer ends.
//!
//! So the offload of `n` lines is bound by the link (`stored / pcie`), by the
//! read bandwidth (`128 n / read_gbps`) or by the buffer (at most
//! `buffer / 132` lines per `request_latency_ns`), whichever is slowest.
//! The prefetch path (host to GPU, decompressing) is a fluid model:
//! [`prefetch_ns`].

use serde::Serialize;
use std::collections::VecDeque;

use crate::config::cdma::CdmaConfig;
pub use crate::config::cdma::{LINE_BYTES, LINE_RESERVATION_BYTES};

/// What one offload did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OffloadRun {
    /// Lines read from DRAM.
    pub lines: u64,
    /// Bytes read from DRAM (`128 x lines`).
    pub read_bytes: u64,
    /// Bytes sent over the host link (the lines' stored bytes).
    pub sent_bytes: u64,
    /// From the first request to the end of the last transfer, ns.
    pub time_ns: f64,
    /// Most bytes held or reserved in the buffer at once.
    pub max_occupancy_bytes: u64,
    /// Time-weighted mean of the buffer's held and reserved bytes.
    pub mean_occupancy_bytes: f64,
    /// Time the launcher waited for buffer space, ns (beyond the read-rate
    /// spacing).
    pub buffer_stall_ns: f64,
    /// Fraction of `time_ns` the host link was sending.
    pub link_busy: f64,
}

impl OffloadRun {
    /// Mean DRAM read bandwidth drawn, GB/s (bytes per ns).
    pub fn read_gbps(&self) -> f64 {
        if self.time_ns > 0.0 {
            self.read_bytes as f64 / self.time_ns
        } else {
            0.0
        }
    }
}

/// A line between its request and the end of its transfer.
struct InFlight {
    arrive: f64,
    end: f64,
    stored: u64,
}

/// The buffer's state over time.
struct Buffer {
    lines: VecDeque<InFlight>,
    /// Lines at the front of `lines` whose data has arrived.
    arrived: usize,
    occupancy: u64,
    now: f64,
    integral: f64,
    max: u64,
}

impl Buffer {
    /// The next arrival or end of a transfer at or before `limit`, as
    /// (time, is_arrival); arrivals first on equal times.
    fn next_event(&self, limit: f64) -> Option<(f64, bool)> {
        let arrival = self.lines.get(self.arrived).map(|l| l.arrive);
        let end = self.lines.front().filter(|_| self.arrived > 0).map(|l| l.end);
        let event = match (arrival, end) {
            (Some(a), Some(e)) if a <= e => (a, true),
            (_, Some(e)) => (e, false),
            (Some(a), None) => (a, true),
            (None, None) => return None,
        };
        (event.0 <= limit).then_some(event)
    }

    fn apply(&mut self, (time, is_arrival): (f64, bool)) {
        self.integral += self.occupancy as f64 * (time - self.now);
        self.now = time;
        if is_arrival {
            let line = &self.lines[self.arrived];
            self.occupancy -= LINE_RESERVATION_BYTES - line.stored;
            self.arrived += 1;
        } else {
            let line = self.lines.pop_front().expect("an end event has a line");
            self.occupancy -= line.stored;
            self.arrived -= 1;
        }
    }

    /// Every event up to `time`, then the clock at `time`.
    fn advance_to(&mut self, time: f64) {
        while let Some(event) = self.next_event(time) {
            self.apply(event);
        }
        self.integral += self.occupancy as f64 * (time - self.now).max(0.0);
        self.now = self.now.max(time);
    }
}

/// Offload lines whose stored sizes are `stored_line_bytes` (each at most
/// [`LINE_RESERVATION_BYTES`]; larger values are clamped to it) through the
/// engine of `config`.
pub fn offload(config: &CdmaConfig, stored_line_bytes: impl IntoIterator<Item = u32>) -> OffloadRun {
    let spacing = LINE_BYTES as f64 / config.read_gbps;
    let send_ns_per_byte = 1.0 / config.pcie_gbps;
    let capacity = config.buffer_bytes();
    let mut buffer = Buffer { lines: VecDeque::new(), arrived: 0, occupancy: 0, now: 0.0, integral: 0.0, max: 0 };
    let (mut lines, mut sent, mut stall) = (0u64, 0u64, 0.0f64);
    let mut last_launch: Option<f64> = None;
    let mut last_end = 0.0f64;
    for stored in stored_line_bytes {
        let stored = u64::from(stored).min(LINE_RESERVATION_BYTES);
        let earliest = last_launch.map_or(0.0, |t| t + spacing);
        buffer.advance_to(earliest);
        while buffer.occupancy + LINE_RESERVATION_BYTES > capacity {
            // `buffer_bytes` >= one reservation, so a full buffer holds a line that will leave.
            let event = buffer.next_event(f64::INFINITY).expect("a full buffer has lines in flight");
            buffer.apply(event);
        }
        let launch = buffer.now.max(earliest);
        stall += launch - earliest;
        buffer.occupancy += LINE_RESERVATION_BYTES;
        buffer.max = buffer.max.max(buffer.occupancy);
        let arrive = launch + config.request_latency_ns;
        last_end = arrive.max(last_end) + stored as f64 * send_ns_per_byte;
        buffer.lines.push_back(InFlight { arrive, end: last_end, stored });
        last_launch = Some(launch);
        lines += 1;
        sent += stored;
    }
    buffer.advance_to(last_end);
    let time_ns = last_end;
    OffloadRun {
        lines,
        read_bytes: lines * LINE_BYTES,
        sent_bytes: sent,
        time_ns,
        max_occupancy_bytes: buffer.max,
        mean_occupancy_bytes: if time_ns > 0.0 { buffer.integral / time_ns } else { 0.0 },
        buffer_stall_ns: stall,
        link_busy: if time_ns > 0.0 { sent as f64 * send_ns_per_byte / time_ns } else { 0.0 },
    }
}

/// Time to bring `stored_bytes` back over the host link and write their
/// `bytes` decompressed into GPU DRAM, ns: the request latency, then the
/// slower of the link and cDMA's DRAM bandwidth (the decompression units
/// take 32 B per cycle as the data streams in, so they add no bound of
/// their own). 0 for no bytes.
pub fn prefetch_ns(config: &CdmaConfig, bytes: u64, stored_bytes: u64) -> f64 {
    if bytes == 0 {
        return 0.0;
    }
    config.request_latency_ns + (stored_bytes as f64 / config.pcie_gbps).max(bytes as f64 / config.read_gbps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn incompressible_lines_are_bound_by_the_link() {
        let c = CdmaConfig::default();
        let run = offload(&c, std::iter::repeat_n(132, 10_000));
        // The first line arrives after the latency; from then on the link never idles.
        assert!(close(run.time_ns, 350.0 + 10_000.0 * 132.0 / 16.0), "{}", run.time_ns);
        assert_eq!(run.sent_bytes, 1_320_000);
        assert!(run.link_busy > 0.99);
        // The launcher outruns the link, so the buffer fills and stalls it.
        assert!(run.max_occupancy_bytes <= c.buffer_bytes() && run.max_occupancy_bytes > c.buffer_bytes() - 132);
        assert!(run.buffer_stall_ns > 0.0);
    }

    #[test]
    fn compressible_lines_are_bound_by_the_read_bandwidth() {
        // 4 bytes per line (an all-zero ZVC line): 32x, beyond 200 / 16 = 12.5x.
        let c = CdmaConfig::default();
        let run = offload(&c, std::iter::repeat_n(4, 10_000));
        let bound = 9_999.0 * 128.0 / 200.0 + 350.0 + 4.0 / 16.0;
        // The default buffer holds 350 ns of requests at 200 GB/s (547 lines);
        // a line that has arrived but not yet left costs the launcher at most
        // a fraction of a nanosecond now and then.
        assert_eq!(c.buffer_bytes(), 547 * 132);
        assert!(run.time_ns >= bound && run.time_ns < bound * 1.001, "{} vs {bound}", run.time_ns);
        assert!(run.buffer_stall_ns < 0.001 * run.time_ns, "{}", run.buffer_stall_ns);
        assert!(run.max_occupancy_bytes <= 547 * 132 && run.max_occupancy_bytes > 546 * 132, "{}", run.max_occupancy_bytes);
        assert!(close(run.read_gbps(), 1_280_000.0 / run.time_ns));
    }

    #[test]
    fn a_small_buffer_bounds_the_lines_in_flight() {
        // 10 reservations: 10 lines per 350 ns, far below the read rate.
        let c = CdmaConfig { buffer_bytes: Some(1320), ..CdmaConfig::default() };
        let run = offload(&c, std::iter::repeat_n(4, 1_000));
        let per_round = 350.0 + 4.0 / 16.0;
        assert!(run.time_ns >= 99.0 * per_round, "{}", run.time_ns);
        assert!(run.time_ns <= 101.0 * per_round, "{}", run.time_ns);
        assert_eq!(run.max_occupancy_bytes, 1320);
    }

    #[test]
    fn no_lines_take_no_time() {
        let run = offload(&CdmaConfig::default(), std::iter::empty());
        assert_eq!((run.lines, run.time_ns, run.max_occupancy_bytes), (0, 0.0, 0));
        assert_eq!(prefetch_ns(&CdmaConfig::default(), 0, 0), 0.0);
    }

    #[test]
    fn prefetch_is_bound_by_the_link_or_the_write_bandwidth() {
        let c = CdmaConfig::default();
        assert!(close(prefetch_ns(&c, 1_600_000, 1_600_000), 350.0 + 100_000.0));
        assert!(close(prefetch_ns(&c, 2_000_000, 16_000), 350.0 + 10_000.0));
    }
}

//! The HBM2 timing parameters of one channel in DRAM clock cycles, and the
//! command-to-command spacings derived from them (JEDEC JESD235 as DRAMsim3
//! models it: per bank, per bank group and per channel).
//!
//! Every spacing is derived here once from the `[hbm]` keys; the channel
//! model only looks them up.

use crate::config::HbmConfig;

/// The DRAM commands the controller issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Activate,
    Precharge,
    Read,
    Write,
    /// All-bank refresh of the channel.
    Refresh,
}

/// Indices into a bank's ready table.
pub const RD: usize = 0;
pub const WR: usize = 1;
pub const ACT: usize = 2;
pub const PRE: usize = 3;
pub const REF: usize = 4;

/// Minimum spacings, DRAM cycles, from a command to a later one
/// (`[later command]` indexed by [`RD`], [`WR`], [`ACT`], [`PRE`], [`REF`];
/// 0 = no constraint).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spacing {
    pub same_bank: [u64; 5],
    pub same_group: [u64; 5],
    pub other_group: [u64; 5],
}

/// One channel's timing, derived from [`HbmConfig`].
#[derive(Debug, Clone, PartialEq)]
pub struct HbmTiming {
    pub bank_groups: usize,
    pub banks_per_group: usize,
    pub rows: u64,
    /// 32-byte columns (sectors) per row.
    pub columns: u64,
    /// Data-bus cycles of one 32-byte access (BL/2 on a DDR bus).
    pub burst: u64,
    /// READ issue to last data, cycles (CL + burst).
    pub read_delay: u64,
    /// WRITE issue to last data written, cycles (CWL + burst).
    pub write_delay: u64,
    pub t_faw: u64,
    pub t_refi: u64,
    pub refresh: bool,
    pub activate: Spacing,
    pub precharge: Spacing,
    pub read: Spacing,
    pub write: Spacing,
    /// Refresh to anything in the channel (tRFC).
    pub t_rfc: u64,
    pub transaction_queue: usize,
    pub command_queue: usize,
    /// Column commands to an open row after which a waiting row miss may
    /// close it (DRAMsim3: 4).
    pub row_hit_limit: u32,
    /// Writes buffered before a drain starts while reads wait.
    pub write_drain_threshold: usize,
    /// A row command (ACT/PRE) and a column command (RD/WR) may issue in
    /// the same cycle (HBM2's separate row and column command buses).
    pub dual_command: bool,
}

impl HbmTiming {
    /// Derive every spacing from the configuration (validated first by
    /// `SimConfig::validate`).
    pub fn new(c: &HbmConfig) -> Self {
        let burst = c.burst_cycles;
        let read_delay = c.cl + burst;
        let write_delay = c.cwl + burst;
        let rd_rd_l = burst.max(c.t_ccd_l);
        let rd_rd_s = burst.max(c.t_ccd_s);
        // Read to write: the read's data must clear the bus before the write's
        // data arrives, plus the bus turnaround (tRTRS).
        let rd_wr = (c.cl + burst + c.t_rtrs).saturating_sub(c.cwl);
        let wr_rd_l = write_delay + c.t_wtr_l;
        let wr_rd_s = write_delay + c.t_wtr_s;
        let wr_pre = c.cwl + burst + c.t_wr;
        let t_rc = c.t_ras + c.t_rp;
        let mut activate = Spacing::default();
        activate.same_bank[ACT] = t_rc;
        activate.same_bank[RD] = c.t_rcd;
        activate.same_bank[WR] = c.t_rcd;
        activate.same_bank[PRE] = c.t_ras;
        activate.same_group[ACT] = c.t_rrd_l;
        activate.other_group[ACT] = c.t_rrd_s;
        let mut precharge = Spacing::default();
        precharge.same_bank[ACT] = c.t_rp;
        precharge.same_bank[REF] = c.t_rp;
        let mut read = Spacing::default();
        read.same_bank = [rd_rd_l, rd_wr, 0, c.t_rtp, 0];
        read.same_group = [rd_rd_l, rd_wr, 0, 0, 0];
        read.other_group = [rd_rd_s, rd_wr, 0, 0, 0];
        let mut write = Spacing::default();
        write.same_bank = [wr_rd_l, burst.max(c.t_ccd_l), 0, wr_pre, 0];
        write.same_group = [wr_rd_l, burst.max(c.t_ccd_l), 0, 0, 0];
        write.other_group = [wr_rd_s, burst.max(c.t_ccd_s), 0, 0, 0];
        HbmTiming {
            bank_groups: c.bank_groups as usize,
            banks_per_group: c.banks_per_group as usize,
            rows: c.rows,
            columns: c.row_bytes / 32,
            burst,
            read_delay,
            write_delay,
            t_faw: c.t_faw,
            t_refi: c.t_refi,
            refresh: c.refresh == "all-bank",
            activate,
            precharge,
            read,
            write,
            t_rfc: c.t_rfc,
            transaction_queue: c.transaction_queue as usize,
            command_queue: c.command_queue as usize,
            row_hit_limit: c.row_hit_limit,
            write_drain_threshold: c.write_drain_threshold as usize,
            dual_command: c.dual_command,
        }
    }

    /// Banks per channel.
    pub fn banks(&self) -> usize {
        self.bank_groups * self.banks_per_group
    }

    /// The spacings after `command`.
    pub fn after(&self, command: Command) -> &Spacing {
        match command {
            Command::Activate => &self.activate,
            Command::Precharge => &self.precharge,
            Command::Read => &self.read,
            Command::Write => &self.write,
            Command::Refresh => unreachable!("a refresh constrains every bank alike"),
        }
    }

    /// Cycles of an unloaded read of a closed bank: ACT, tRCD, then CL and
    /// the burst (the channel's own latency, without the path to it).
    pub fn closed_bank_read_cycles(&self) -> u64 {
        self.activate.same_bank[RD] + self.read_delay
    }
}

//! What every study of one `buddy study` invocation shares: the class
//! profiles, the workloads, the arguments, and the expensive runs made once
//! for all the studies that need them.

use std::cell::OnceCell;
use std::path::Path;

use anyhow::Context as _;
use buddy_golden::profiler::{profile, Granularity, ProfilerConfig, MAX_OVERALL_RATIO};
use buddy_golden::translation::TargetRatio;
use buddy_sim::cdma::training::Training;
use buddy_sim::class_profile::ClassProfile;
use buddy_sim::study::memory_modes::MemoryModes;
use buddy_sim::study::oversubscription::Oversubscription;
use buddy_sim::study::Iterations;
use buddy_sim::trace::Trace;
use buddy_sim::Workload;

use super::args::Args;

/// What every study of one invocation shares; the memory-system runs are
/// made once for both Fig. 12 and Fig. 13.
pub(super) struct Ctx<'a> {
    pub(super) cps: &'a [ClassProfile],
    pub(super) workloads: &'a [Workload],
    pub(super) args: &'a Args,
    /// Where the outputs are written (the staging folder of `--out`).
    pub(super) out: &'a Path,
    memory: OnceCell<Vec<Option<MemoryModes>>>,
    training: OnceCell<Vec<Option<Training>>>,
    oversubscription: OnceCell<Vec<Option<Oversubscription>>>,
    traces: OnceCell<Vec<Option<Trace>>>,
}

impl<'a> Ctx<'a> {
    /// The context of one invocation; nothing is run yet.
    pub(super) fn new(cps: &'a [ClassProfile], workloads: &'a [Workload], args: &'a Args, out: &'a Path) -> Self {
        Ctx {
            cps,
            workloads,
            args,
            out,
            memory: OnceCell::new(),
            training: OnceCell::new(),
            oversubscription: OnceCell::new(),
            traces: OnceCell::new(),
        }
    }

    /// Per workload, its recorded access trace (`None` without `trace.bin`).
    pub(super) fn traces(&self) -> anyhow::Result<&[Option<Trace>]> {
        if self.traces.get().is_none() {
            let mut all = Vec::new();
            for w in self.workloads {
                all.push(if w.path().join("trace.bin").is_file() {
                    Some(Trace::open(w.path()).with_context(|| format!("cannot read the access trace of {}", w.path().display()))?)
                } else {
                    None
                });
            }
            let _ = self.traces.set(all);
        }
        Ok(self.traces.get().map(Vec::as_slice).unwrap_or(&[]))
    }

    /// Per workload, vDNN and cDMA over its snapshots (`None` without activation maps).
    pub(super) fn training(&self) -> anyhow::Result<&[Option<Training>]> {
        if self.training.get().is_none() {
            let config = crate::sim::load_config(self.args.sim_config.as_deref(), None)?;
            let _ = self.training.set(self.workloads.iter().map(|w| Training::new(w, &config.cdma)).collect());
        }
        Ok(self.training.get().map(Vec::as_slice).unwrap_or(&[]))
    }

    /// The profiler's targets (per manifest allocation) of a workload.
    pub(super) fn profiled_targets(&self, cp: &ClassProfile) -> anyhow::Result<Vec<TargetRatio>> {
        let pc = ProfilerConfig {
            threshold: self.args.threshold,
            granularity: Granularity::PerAllocationMostlyZero,
            max_overall_ratio: MAX_OVERALL_RATIO,
        };
        Ok(profile(&cp.allocation_profiles(), &pc)?.targets())
    }

    /// Per workload, the oversubscription runs (`None` without a trace).
    pub(super) fn oversubscription(&self) -> anyhow::Result<&[Option<Oversubscription>]> {
        if self.oversubscription.get().is_none() {
            let config = crate::sim::load_config(self.args.sim_config.as_deref(), None)?;
            let mut all = Vec::new();
            for ((cp, workload), trace) in self.cps.iter().zip(self.workloads).zip(self.traces()?) {
                let Some(trace) = trace else {
                    all.push(None);
                    continue;
                };
                let targets = self.profiled_targets(cp)?;
                let runs = 1 + 6 * self.args.oversubscription.len();
                eprintln!(
                    "oversubscription: {} with up to {runs} runs (UM, UM+PE, UM+MT, UM+CC, ETC, Buddy per oversubscription), iterations: {} ...",
                    cp.workload,
                    match self.args.iterations {
                        Iterations::Fixed(n) => n.to_string(),
                        Iterations::Settle => "until the slowdowns settle".into(),
                    }
                );
                let o = Oversubscription::new(
                    workload,
                    trace,
                    targets,
                    self.args.algo,
                    &config,
                    &self.args.oversubscription,
                    self.args.iterations,
                )
                .with_context(|| format!("oversubscription on {}", cp.workload))?;
                all.push(Some(o));
            }
            let _ = self.oversubscription.set(all);
        }
        Ok(self.oversubscription.get().map(Vec::as_slice).unwrap_or(&[]))
    }

    /// Per workload, the memory-system runs (`None` without a trace).
    pub(super) fn memory(&self) -> anyhow::Result<&[Option<MemoryModes>]> {
        if self.memory.get().is_none() {
            let config = crate::sim::load_config(self.args.sim_config.as_deref(), None)?;
            let mut all = Vec::new();
            for ((cp, workload), trace) in self.cps.iter().zip(self.workloads).zip(self.traces()?) {
                let Some(trace) = trace else {
                    all.push(None);
                    continue;
                };
                let targets = self.profiled_targets(cp)?;
                eprintln!("memory system: {} in every mode, Buddy at {} link bandwidths ...", cp.workload, self.args.link_gbps.len());
                let m = MemoryModes::new(workload, trace, targets, self.args.algo, &config, &self.args.link_gbps, self.args.iterations)
                    .with_context(|| format!("memory system on {}", cp.workload))?;
                all.push(Some(m));
            }
            let _ = self.memory.set(all);
        }
        Ok(self.memory.get().map(Vec::as_slice).unwrap_or(&[]))
    }
}

//! Oversubscription (Buddy Compression Fig. 14, ETC Fig. 10-14): runtime
//! relative to unlimited device memory of Unified Memory alone, UM with
//! each of ETC's techniques, full ETC (the classifier's combination) and
//! Buddy Compression, at each oversubscription, on a workload's trace
//! ([`crate::oversubscription`], `docs/oversubscription.md`).

use buddy_golden::translation::TargetRatio;
use buddy_golden::Algorithm;
use rayon::prelude::*;
use serde::Serialize;

use crate::config::SimConfig;
use crate::memory_system::SimError;
use crate::oversubscription::classifier::{classify, Classification, Techniques};
use crate::oversubscription::{run_oversubscribed, Footprint, OversubscribedInput, OversubscribedRun, System};
use crate::trace::Trace;
use crate::workload::Workload;

/// The study's oversubscriptions: 0 to 50% in steps of 10% (the Buddy
/// paper's Fig. 14 goes to 40%), and ETC's two points, device memories of
/// 75% and 50% of the footprint (ETC Sec. 5: 33% and 100%).
pub const DEFAULT_OVERSUBSCRIPTION: [f64; 8] = [0.0, 0.1, 0.2, 0.3, 1.0 / 3.0, 0.4, 0.5, 1.0];

/// The systems, in the order the study prints them; ETC's entry is filled
/// in by the classifier.
fn systems(etc: Techniques) -> [(String, System); 6] {
    let um = |proactive_eviction, throttling, capacity_compression| {
        System::UnifiedMemory(Techniques { proactive_eviction, throttling, capacity_compression })
    };
    [
        ("UM".into(), um(false, false, false)),
        ("UM+PE".into(), um(true, false, false)),
        ("UM+MT".into(), um(false, true, false)),
        ("UM+CC".into(), um(false, false, true)),
        (format!("ETC ({})", etc.label()), System::UnifiedMemory(etc)),
        ("buddy".into(), System::Buddy),
    ]
}

/// One system at one oversubscription.
#[derive(Debug, Clone, Serialize)]
pub struct OversubscriptionPoint {
    pub system: String,
    /// 0.1 = 10%.
    pub oversubscription: f64,
    /// Time / unlimited memory's time; `None` when the run cannot be made.
    pub slowdown: Option<f64>,
    /// Why not, when `slowdown` is `None` (e.g. device memory below one page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<OversubscribedRun>,
}

/// The study of one workload.
#[derive(Debug, Clone, Serialize)]
pub struct Oversubscription {
    pub workload: String,
    pub page_bytes: u64,
    /// The pages the trace touches, bytes (ETC's footprint).
    pub footprint_bytes: u64,
    pub classification: Classification,
    /// The combination ETC picks for this workload.
    pub etc: Techniques,
    pub unlimited: OversubscribedRun,
    pub points: Vec<OversubscriptionPoint>,
}

impl Oversubscription {
    /// Run every system at every `oversubscription` on `trace` over
    /// `workload` (memory from its first snapshot); Buddy starts from
    /// `targets` (per manifest allocation) with `algorithm`.
    ///
    /// # Errors
    /// What a run reports other than a configuration it cannot honour
    /// (those become points with `not_run`), e.g. a data mismatch.
    pub fn new(
        workload: &Workload,
        trace: &Trace,
        targets: Vec<TargetRatio>,
        algorithm: Algorithm,
        config: &SimConfig,
        oversubscription: &[f64],
    ) -> Result<Self, SimError> {
        let page_bytes = config.um.page_bytes();
        let footprint = Footprint::new(workload, trace, page_bytes);
        let classification = classify(&trace.accesses, |a| footprint.pages_of(a).0, &config.etc);
        let etc = classification.class.techniques();
        let lcp = footprint.lcp_page_bytes(workload, trace);
        let run = |system: System, x: f64| {
            run_oversubscribed(&OversubscribedInput {
                workload,
                trace,
                config,
                oversubscription: x,
                system,
                algorithm,
                targets: targets.clone(),
                lcp_page_bytes: Some(&lcp),
            })
        };
        let unlimited = run(System::Unlimited, 0.0)?;
        let jobs: Vec<(String, System, f64)> = oversubscription
            .iter()
            .flat_map(|&x| {
                systems(etc).into_iter().map(move |(name, s)| {
                    // ETC turns its techniques on when memory is oversubscribed.
                    let s = if x == 0.0 && name.starts_with("ETC") { System::UnifiedMemory(Techniques::default()) } else { s };
                    (name, s, x)
                })
            })
            .collect();
        let points = jobs
            .par_iter()
            .map(|(name, system, x)| match run(*system, *x) {
                Ok(r) => Ok(OversubscriptionPoint {
                    system: name.clone(),
                    oversubscription: *x,
                    slowdown: Some(r.time_ns / unlimited.time_ns),
                    not_run: None,
                    run: Some(r),
                }),
                Err(SimError::Config(why)) => {
                    Ok(OversubscriptionPoint { system: name.clone(), oversubscription: *x, slowdown: None, not_run: Some(why), run: None })
                }
                Err(e) => Err(e),
            })
            .collect::<Result<Vec<_>, SimError>>()?;
        Ok(Oversubscription {
            workload: workload.manifest().workload.clone(),
            page_bytes,
            footprint_bytes: footprint.bytes(),
            classification,
            etc,
            unlimited,
            points,
        })
    }

    /// The systems' names in print order.
    pub fn system_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for p in &self.points {
            if !names.contains(&p.system) {
                names.push(p.system.clone());
            }
        }
        names
    }
}

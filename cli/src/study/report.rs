//! `report.md` of `buddy study all`: every study's table, plots and data
//! files, each with how to read it.

use std::fmt::Write as _;

use buddy_sim::class_profile::ClassProfile;

use super::args::{Args, StudyName};
use super::common::Output;
use super::{bandwidth_sweep, buddy_over_time, cdma_offload, cdma_performance, cdma_ratios, designs, energy};
use super::{heatmap, mag, minibatch, oversubscription, ratio_over_time, threshold_sweep};

/// How to read each study, for report.md.
fn explanation(study: StudyName) -> &'static str {
    match study {
        StudyName::RatioOverTime => ratio_over_time::EXPLANATION,
        StudyName::Heatmap => heatmap::EXPLANATION,
        StudyName::Designs => designs::EXPLANATION,
        StudyName::ThresholdSweep => threshold_sweep::EXPLANATION,
        StudyName::BuddyOverTime => buddy_over_time::EXPLANATION,
        StudyName::BandwidthSweep => bandwidth_sweep::EXPLANATION,
        StudyName::Energy => energy::EXPLANATION,
        StudyName::CdmaRatios => cdma_ratios::EXPLANATION,
        StudyName::CdmaOffload => cdma_offload::EXPLANATION,
        StudyName::CdmaPerformance => cdma_performance::EXPLANATION,
        StudyName::Oversubscription => oversubscription::EXPLANATION,
        StudyName::Minibatch => minibatch::EXPLANATION,
        StudyName::Mag => mag::EXPLANATION,
        StudyName::All => "",
    }
}

pub(super) fn report_md(outputs: &[Output], cps: &[ClassProfile], args: &Args) -> String {
    let mut s = format!(
        "# Buddy Compression studies\n\nWorkloads: {}. Size classes by `{}` (golden model), profiler Buddy Threshold {:.0}% (sweep: {}), 4x cap on the overall ratio.\n\n",
        cps.iter().map(|cp| format!("`{}` ({} snapshots, {} entries each)", cp.workload, cp.snapshots.len(), cp.entries_per_snapshot())).collect::<Vec<_>>().join(", "),
        args.algo,
        100.0 * args.threshold,
        args.thresholds.iter().map(|t| format!("{:.0}%", 100.0 * t)).collect::<Vec<_>>().join(", ")
    );
    s += "The paper's averages for its evaluated design (Sec. III-C): 1.9x compression for HPC and 1.5x for DL, with 0.08% (HPC) and 4% (DL) of accesses going to buddy-memory.\n\n";
    for o in outputs {
        let stem = o.study.file_stem();
        let _ = write!(s, "## {stem}\n\n{}\n\n```\n{}```\n\n", explanation(o.study), o.table);
        for png in &o.pngs {
            let name = png.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let _ = write!(s, "![{name}]({name})\n\n");
        }
        let _ = write!(s, "Data: `{stem}.json`, `{stem}.csv`.\n\n");
    }
    s += "Fig. 12 and 13 come from the fast engine of the memory system with the paper's idealized controller timing (the golden behaviour model of the slices in place of the hardware); `buddy sim --engine rtl` runs the `BuddyController` hardware instead, which serves one request at a time per slice.\n";
    s
}

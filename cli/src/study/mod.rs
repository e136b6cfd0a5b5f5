//! `buddy study NAME [PATH...]`: the Buddy Compression paper's compressibility
//! and target-ratio studies (Fig. 3, 7, 8, 9, 10) on snapshot workloads, and
//! its link-bandwidth and energy studies (Fig. 12, 13) on their traces, and
//! its DL mini-batch study (Fig. 15) from the manifests' roles. Every
//! study writes `<out>/<name>.json`, `<out>/<name>.csv` and PNG plots and
//! prints a table (or the JSON / CSV on stdout); `all` runs them all and
//! writes `<out>/report.md`.
//!
//! One file per study (as `buddy_sim::study`); this one parses, dispatches
//! and writes.

mod args;
mod bandwidth_sweep;
mod buddy_over_time;
mod cdma;
mod cdma_offload;
mod cdma_performance;
mod cdma_ratios;
mod common;
mod context;
mod designs;
mod energy;
mod heatmap;
mod mag;
mod memory_modes;
mod minibatch;
mod oversubscription;
mod ratio_over_time;
mod report;
mod threshold_sweep;

use std::path::Path;

use anyhow::{bail, Context as _};

pub use self::args::{Args, StudyName};
use self::common::Output;
use self::context::Ctx;
use crate::output::{out, outln, write_file, OutputDir};
use crate::profile::{class_profiles, open_workloads};

/// Run `buddy study`.
///
/// # Errors
/// Invalid workloads or annotation, `--csv` with `all`, or files that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.csv && args.study == StudyName::All {
        bail!("--csv prints one study's table; with `all` the CSV files are in the output folder");
    }
    if args.thresholds.is_empty() {
        bail!("--thresholds needs at least one threshold");
    }
    let paths = if args.paths.is_empty() { vec![crate::bundled::default_workload()?] } else { args.paths.clone() };
    let workloads = open_workloads(&paths)?;
    let config = crate::sim::load_config(args.sim_config.as_deref(), None)?;
    for &g in &args.link_gbps {
        let mut c = config.clone();
        c.nvlink.gbps = g;
        c.validate().with_context(|| format!("--link-gbps {g}"))?;
    }
    if let Some(a) = &args.annotation {
        let names: Vec<&str> = workloads.iter().map(|w| w.manifest().workload.as_str()).collect();
        buddy_over_time::read_annotation(a, &names)?;
    }
    let staging = OutputDir::prepare(&args.out, args.force)?;
    let cps = class_profiles(&workloads, args.algo);
    let studies: Vec<StudyName> = if args.study == StudyName::All { StudyName::EACH.to_vec() } else { vec![args.study] };
    let mut outputs = Vec::new();
    let ctx = Ctx::new(&cps, &workloads, &args, staging.path());
    for s in studies {
        let o = run_one(s, &ctx).with_context(|| format!("study {}", s.file_stem()))?;
        write_files(&o, staging.path())?;
        outputs.push(o);
    }
    if args.study == StudyName::All {
        write_file(&staging.path().join("report.md"), report::report_md(&outputs, &cps, &args))?;
    }
    let out = staging.commit()?;
    // The plots as the user will find them.
    let placed = |p: &Path| p.file_name().map_or_else(|| p.to_path_buf(), |n| out.join(n));
    if args.json {
        let doc = if outputs.len() == 1 {
            outputs.remove(0).json
        } else {
            serde_json::Value::Object(outputs.into_iter().map(|o| (o.study.file_stem().to_string(), o.json)).collect())
        };
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else if args.csv {
        out!("{}", outputs[0].csv)?;
    } else {
        for o in &outputs {
            outln!("== {} ==\n{}", o.study.file_stem(), o.table)?;
            for p in &o.pngs {
                outln!("plot: {}", placed(p).display())?;
            }
            outln!()?;
        }
        if args.study == StudyName::All {
            outln!("report: {}", out.join("report.md").display())?;
        }
    }
    Ok(())
}

/// Run one study (not `all`).
fn run_one(study: StudyName, ctx: &Ctx) -> anyhow::Result<Output> {
    let (cps, args, out) = (ctx.cps, ctx.args, ctx.out);
    match study {
        StudyName::Heatmap => heatmap::heatmaps(cps, out),
        StudyName::RatioOverTime => ratio_over_time::ratio_over_time(cps, out),
        StudyName::Designs => designs::designs(cps, ctx.traces()?, args.threshold, out),
        StudyName::ThresholdSweep => threshold_sweep::threshold_sweep(cps, ctx.traces()?, &args.thresholds, out),
        StudyName::BuddyOverTime => buddy_over_time::buddy_over_time(cps, ctx.traces()?, args.threshold, args.annotation.as_deref(), out),
        StudyName::BandwidthSweep => bandwidth_sweep::bandwidth_sweep(ctx, out),
        StudyName::Energy => energy::energy(ctx, out),
        StudyName::CdmaRatios => cdma_ratios::cdma_ratios(ctx.workloads, out),
        StudyName::CdmaOffload => cdma_offload::cdma_offload(ctx.workloads, ctx.training()?, out),
        StudyName::CdmaPerformance => cdma_performance::cdma_performance(ctx.workloads, ctx.training()?, out),
        StudyName::Oversubscription => oversubscription::oversubscription(ctx, out),
        StudyName::Minibatch => minibatch::minibatch(ctx, out),
        StudyName::Mag => mag::mag(ctx, out),
        StudyName::All => unreachable!("`all` runs the others"),
    }
}

/// Write a study's JSON and CSV into `out`.
fn write_files(o: &Output, out: &Path) -> anyhow::Result<()> {
    let stem = o.study.file_stem();
    write_file(&out.join(format!("{stem}.json")), serde_json::to_string_pretty(&o.json)? + "\n")?;
    write_file(&out.join(format!("{stem}.csv")), &o.csv)?;
    Ok(())
}

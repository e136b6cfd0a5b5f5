//! What one study produces, and the number formats and CSV writer the
//! studies share.

use std::path::PathBuf;

use serde::Serialize;

use super::args::StudyName;

/// What one study produced.
pub(super) struct Output {
    pub(super) study: StudyName,
    pub(super) table: String,
    pub(super) json: serde_json::Value,
    pub(super) csv: String,
    pub(super) pngs: Vec<PathBuf>,
}

pub(super) fn csv_of<T: Serialize>(rows: &[T]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

pub(super) fn pct(f: f64) -> String {
    format!("{:.2}%", 100.0 * f)
}

pub(super) fn opt_ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_string(), |r| format!("{r:.3}"))
}

pub(super) fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

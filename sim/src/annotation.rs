//! Target-ratio annotation files: which target ratio (docs/formats.md#target-ratios)
//! each allocation of a workload gets. `buddy profile` writes them; the
//! studies (and the memory-system simulator) read them.
//!
//! Format (JSON, `format` = [`ANNOTATION_FORMAT`]):
//!
//! ```json
//! { "format": "buddy-targets/1", "workload": "hpgmg",
//!   "default_target": "2x",
//!   "allocations": [ { "name": "L0.U", "target": "4/3x" }, ... ] }
//! ```
//!
//! `target` is one of `1x`, `4/3x`, `2x`, `4x`, `16x`. Allocations not listed
//! get `default_target`; without one, every allocation of the workload must
//! be listed. Other keys (the profiler's figures) are ignored on reading.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use buddy_golden::translation::TargetRatio;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The `format` value of this version of the file.
pub const ANNOTATION_FORMAT: &str = "buddy-targets/1";

/// One allocation's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotatedAllocation {
    pub name: String,
    pub target: String,
    /// Entries of the allocation (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
    /// The profiler's expected buddy-access fraction, mean over snapshots (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buddy_fraction_mean: Option<f64>,
    /// The same, worst snapshot (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buddy_fraction_worst: Option<f64>,
}

/// The whole file.
/// Unknown keys are errors (a typo such as `default_targte` would
/// otherwise silently leave every unlisted allocation at its default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotationFile {
    pub format: String,
    pub workload: String,
    /// Algorithm the profile was made with (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// Buddy Threshold used (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Overall ratio the profiler expects (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overall_ratio: Option<f64>,
    /// Target of allocations not listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_target: Option<String>,
    pub allocations: Vec<AnnotatedAllocation>,
}

/// Why an annotation cannot be used. Every variant names the file.
#[derive(Debug, Error)]
pub enum AnnotationError {
    #[error("cannot read annotation {path}", path = .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid annotation {path}", path = .path.display())]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path}: format is '{found}', expected '{ANNOTATION_FORMAT}'", path = .path.display())]
    Format { path: PathBuf, found: String },
    #[error("{path}: allocation '{name}': {source}", path = .path.display())]
    Target {
        path: PathBuf,
        name: String,
        #[source]
        source: buddy_golden::translation::UnknownTarget,
    },
    #[error("{path}: default_target: {source}", path = .path.display())]
    DefaultTarget {
        path: PathBuf,
        #[source]
        source: buddy_golden::translation::UnknownTarget,
    },
    #[error("{path}: allocation '{name}' is not an allocation of workload '{workload}'", path = .path.display())]
    UnknownAllocation { path: PathBuf, name: String, workload: String },
    #[error("{path}: allocation '{name}' is listed twice", path = .path.display())]
    Duplicate { path: PathBuf, name: String },
    #[error(
        "{path}: {count} allocation(s) of the workload are not listed and there is no default_target (first: '{first}')",
        path = .path.display()
    )]
    Missing { path: PathBuf, count: usize, first: String },
}

impl AnnotationFile {
    /// Read and check `path` against the workload's allocation names
    /// (manifest order); returns the target of each allocation in that order.
    ///
    /// # Errors
    /// [`AnnotationError`]: unreadable file, invalid JSON (with line and
    /// column), wrong `format`, an unknown target name, an allocation the
    /// workload lacks or listed twice, or unlisted allocations without a
    /// `default_target`.
    pub fn read_targets(path: &Path, workload: &str, allocations: &[String]) -> Result<Vec<TargetRatio>, AnnotationError> {
        Self::read(path)?.targets(path, workload, allocations)
    }

    /// Read and parse `path` (no check against a workload).
    ///
    /// # Errors
    /// [`AnnotationError::Read`] or [`AnnotationError::Json`] (with line and column).
    pub fn read(path: &Path) -> Result<AnnotationFile, AnnotationError> {
        let text = crate::input_file::read_to_string(path).map_err(|source| AnnotationError::Read { path: path.into(), source })?;
        serde_json::from_str(&text).map_err(|source| AnnotationError::Json { path: path.into(), source })
    }

    /// The target of each of `allocations` (see [`AnnotationFile::read_targets`]).
    ///
    /// # Errors
    /// As [`AnnotationFile::read_targets`], except reading and parsing.
    pub fn targets(&self, path: &Path, workload: &str, allocations: &[String]) -> Result<Vec<TargetRatio>, AnnotationError> {
        if self.format != ANNOTATION_FORMAT {
            return Err(AnnotationError::Format { path: path.into(), found: self.format.clone() });
        }
        let default = self
            .default_target
            .as_deref()
            .map(|t| t.parse::<TargetRatio>())
            .transpose()
            .map_err(|source| AnnotationError::DefaultTarget { path: path.into(), source })?;
        let position: HashMap<&str, usize> = allocations.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        let mut targets: Vec<Option<TargetRatio>> = vec![None; allocations.len()];
        for a in &self.allocations {
            let i = *position.get(a.name.as_str()).ok_or_else(|| AnnotationError::UnknownAllocation {
                path: path.into(),
                name: a.name.clone(),
                workload: workload.to_string(),
            })?;
            let target = a.target.parse::<TargetRatio>().map_err(|source| AnnotationError::Target {
                path: path.into(),
                name: a.name.clone(),
                source,
            })?;
            if targets[i].replace(target).is_some() {
                return Err(AnnotationError::Duplicate { path: path.into(), name: a.name.clone() });
            }
        }
        let missing: Vec<usize> = (0..targets.len()).filter(|&i| targets[i].is_none()).collect();
        match (default, missing.first()) {
            (None, Some(&first)) => {
                Err(AnnotationError::Missing { path: path.into(), count: missing.len(), first: allocations[first].clone() })
            }
            _ => Ok(targets.into_iter().map(|t| t.or(default).unwrap_or(TargetRatio::X2)).collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn names() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    fn file(default: Option<&str>, allocs: &[(&str, &str)]) -> AnnotationFile {
        AnnotationFile {
            format: ANNOTATION_FORMAT.into(),
            workload: "w".into(),
            algorithm: None,
            threshold: None,
            overall_ratio: None,
            default_target: default.map(Into::into),
            allocations: allocs
                .iter()
                .map(|(n, t)| AnnotatedAllocation {
                    name: n.to_string(),
                    target: t.to_string(),
                    entries: None,
                    buddy_fraction_mean: None,
                    buddy_fraction_worst: None,
                })
                .collect(),
        }
    }

    fn targets(f: &AnnotationFile) -> Result<Vec<TargetRatio>, AnnotationError> {
        f.targets(Path::new("t.json"), "w", &names())
    }

    #[test]
    fn targets_in_manifest_order_with_default() {
        assert_eq!(targets(&file(None, &[("b", "16x"), ("a", "4/3x")])).unwrap(), vec![TargetRatio::X4Over3, TargetRatio::X16]);
        assert_eq!(targets(&file(Some("4x"), &[("b", "1x")])).unwrap(), vec![TargetRatio::X4, TargetRatio::X1]);
    }

    #[test]
    fn bad_annotations_name_the_problem() {
        let e = targets(&file(None, &[("a", "2x"), ("zz", "2x")])).unwrap_err().to_string();
        assert!(e.contains("'zz' is not an allocation of workload 'w'"), "{e}");
        let e = targets(&file(None, &[("a", "3x"), ("b", "2x")])).unwrap_err().to_string();
        assert!(e.contains("allocation 'a'"), "{e}");
        let e = targets(&file(None, &[("a", "2x"), ("a", "2x")])).unwrap_err().to_string();
        assert!(e.contains("listed twice"), "{e}");
        let e = targets(&file(None, &[("a", "2x")])).unwrap_err().to_string();
        assert!(e.contains("1 allocation(s)") && e.contains("'b'"), "{e}");
        let e = targets(&file(Some("8x"), &[])).unwrap_err().to_string();
        assert!(e.contains("default_target"), "{e}");
        let mut f = file(Some("2x"), &[]);
        f.format = "other/9".into();
        assert!(targets(&f).unwrap_err().to_string().contains("format is 'other/9'"));
    }

    #[test]
    fn round_trips_through_json_and_reports_bad_json_with_position() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        fs::write(&p, serde_json::to_string_pretty(&file(None, &[("a", "2x"), ("b", "4x")])).unwrap()).unwrap();
        assert_eq!(AnnotationFile::read_targets(&p, "w", &names()).unwrap(), vec![TargetRatio::X2, TargetRatio::X4]);
        fs::write(&p, "{\n \"format\": ").unwrap();
        let e = AnnotationFile::read_targets(&p, "w", &names()).unwrap_err();
        let chain = format!("{e}: {}", std::error::Error::source(&e).unwrap());
        assert!(chain.contains("line 2"), "{chain}");
    }

    #[test]
    fn unknown_keys_are_rejected_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        let text = serde_json::to_string(&file(None, &[("a", "2x"), ("b", "4x")])).unwrap();
        for (typo, key) in [("\"workload\"", "\"default_targte\": \"4x\", \"workload\""), ("\"target\"", "\"tagret\": \"4x\", \"target\"")]
        {
            fs::write(&p, text.replacen(typo, key, 1)).unwrap();
            let e = AnnotationFile::read_targets(&p, "w", &names()).unwrap_err();
            let chain = format!("{e}: {}", std::error::Error::source(&e).unwrap());
            assert!(chain.contains("unknown field"), "{chain}");
        }
    }
}

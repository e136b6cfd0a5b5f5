//! Argument values shared by several subcommands: the default algorithm and
//! the clap value parsers of shares, thresholds, memory sizes and algorithm
//! names.
//!
//! They live here, not in one subcommand's module, so that subcommands do
//! not import each other for them (`study` and `profile` once did, both
//! ways).

use std::str::FromStr;

use buddy_golden::Algorithm;

/// The algorithm every subcommand studies or simulates without `--algo`
/// (and `buddy run`'s memory system uses): the paper's BPC.
pub const DEFAULT_ALGORITHM: Algorithm = Algorithm::Bpc;

/// A share written as a fraction or a percentage: `0.3` or `30%` → 0.3;
/// `example` goes into the error for anything else.
pub fn parse_share(s: &str, example: &str) -> Result<f64, String> {
    let t = s.trim();
    match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| format!("'{s}' is not a number (e.g. {example})"))
}

/// A memory size in bytes: `4096`, `12B`; binary `4K`, `2M`, `1G` (either
/// case) or `4KiB`, `2MiB`, `12GiB`; decimal `4KB`, `512MB`, `1.5GB`.
/// `None` unless it comes to at least one byte (and fits a `u64`).
pub fn parse_byte_size(s: &str) -> Option<u64> {
    const UNITS: [(&str, f64); 13] = [
        ("GiB", 1_073_741_824.0),
        ("MiB", 1_048_576.0),
        ("KiB", 1024.0),
        ("GB", 1e9),
        ("MB", 1e6),
        ("KB", 1e3),
        ("B", 1.0),
        ("G", 1_073_741_824.0),
        ("g", 1_073_741_824.0),
        ("M", 1_048_576.0),
        ("m", 1_048_576.0),
        ("K", 1024.0),
        ("k", 1024.0),
    ];
    let t = s.trim();
    let (number, scale) = UNITS.iter().find_map(|(u, f)| t.strip_suffix(u).map(|n| (n.trim(), *f))).unwrap_or((t, 1.0));
    let v = number.parse::<f64>().ok()?;
    (v.is_finite() && v * scale >= 1.0 && v * scale < 1.8e19).then(|| (v * scale).round() as u64)
}

/// `0.3` or `30%` → 0.3, strictly between 0 and 1.
pub fn parse_threshold(s: &str) -> Result<f64, String> {
    let v = parse_share(s, "0.3 or 30%")?;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("the Buddy Threshold must lie strictly between 0 and 1 (0% and 100%), got {s}"))
    }
}

/// One algorithm name of [`Algorithm::ALL`].
pub fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    Algorithm::from_str(s.trim()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_fractions_or_percentages() {
        assert_eq!(parse_share("0.25", "x"), Ok(0.25));
        assert_eq!(parse_share(" 30 % ", "x"), Ok(0.3));
        assert_eq!(parse_share("abc", "0.2 or 20%"), Err("'abc' is not a number (e.g. 0.2 or 20%)".to_string()));
    }

    #[test]
    fn thresholds_lie_strictly_between_0_and_1() {
        assert_eq!(parse_threshold("30%"), Ok(0.3));
        for bad in ["0", "1", "100%", "-0.2"] {
            assert!(parse_threshold(bad).unwrap_err().contains("strictly between"), "{bad}");
        }
    }

    #[test]
    fn byte_sizes_take_binary_and_decimal_units() {
        assert_eq!(parse_byte_size("4096"), Some(4096));
        assert_eq!(parse_byte_size("4K"), Some(4096));
        assert_eq!(parse_byte_size("2m"), Some(2 << 20));
        assert_eq!(parse_byte_size("12GiB"), Some(12 << 30));
        assert_eq!(parse_byte_size("1.5GB"), Some(1_500_000_000));
        assert_eq!(parse_byte_size("512 MB"), Some(512_000_000));
        for bad in ["0", "lots", "-4K", "0.2B", ""] {
            assert_eq!(parse_byte_size(bad), None, "{bad}");
        }
    }

    /// clap prints the default with `Display` and parses it back with the
    /// value parser: both ways must give the same algorithm.
    #[test]
    fn the_default_algorithm_parses_back_from_its_name() {
        assert_eq!(parse_algorithm(&DEFAULT_ALGORITHM.to_string()), Ok(DEFAULT_ALGORITHM));
    }
}

//! Argument values shared by several subcommands: the default algorithm and
//! the clap value parsers of shares, thresholds and algorithm names.
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

    /// clap prints the default with `Display` and parses it back with the
    /// value parser: both ways must give the same algorithm.
    #[test]
    fn the_default_algorithm_parses_back_from_its_name() {
        assert_eq!(parse_algorithm(&DEFAULT_ALGORITHM.to_string()), Ok(DEFAULT_ALGORITHM));
    }
}

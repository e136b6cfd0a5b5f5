//! Why a configuration is rejected.

use thiserror::Error;

/// A configuration that cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read config {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Bad TOML, an unknown key or a value of the wrong type (the message
    /// names the key and the line).
    #[error("config {path}: {message}")]
    Parse { path: String, message: String },
    /// A value outside its range.
    #[error("config key {key} = {value}: {why}")]
    Value { key: &'static str, value: String, why: &'static str },
}

//! Progress on stderr for commands that run longer than a few seconds
//! (drawn only when stderr is a terminal, cleared at the end).

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A bar of `len` steps named `unit`, with `msg` before it.
pub fn bar(len: u64, unit: &str, msg: impl Into<String>) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let template = format!("{{msg}} {{bar:40}} {{human_pos}}/{{human_len}} {unit} ({{elapsed}}, eta {{eta}})");
    bar.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    bar.set_message(msg.into());
    bar
}

/// A spinner for a step whose length is unknown (a Verilator build, a
/// Yosys run), ticking on its own.
pub fn spinner(msg: impl Into<String>) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").unwrap_or_else(|_| ProgressStyle::default_spinner()));
    bar.set_message(msg.into());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Print `line` above `bar`, or on stderr when the bar is not drawn (no
/// terminal), so that a logged run still says what it did.
pub fn note(bar: &ProgressBar, line: impl AsRef<str>) {
    if bar.is_hidden() {
        eprintln!("{}", line.as_ref());
    } else {
        bar.println(line.as_ref());
    }
}

//! Identifiers without `$`.
//!
//! rust-hdl names a sub-module `<parent>$<field>` and a sub-module's port
//! in its parent `<field>$<port>`. `$` is legal in a Verilog identifier,
//! but Vivado's Tcl and XDC (`get_cells`, ILA probe lists) read it as a
//! variable, so every such name needs escaping there. [`plain_names`]
//! writes [`SEPARATOR`] for each `$`.

use super::single_assignment::map_identifiers;
use std::collections::{BTreeMap, BTreeSet};

/// What replaces each `$` of a rust-hdl name: `top$sub` becomes `top__sub`.
pub const SEPARATOR: &str = "__";

/// `verilog` with every identifier's `$` written as [`SEPARATOR`] (system
/// tasks such as `$display` and comments are left alone). Behaviour is
/// unchanged.
///
/// # Errors
/// A new name is already an identifier of the text (two names would
/// become one).
pub fn plain_names(verilog: &str) -> Result<String, String> {
    let mut existing: BTreeSet<String> = BTreeSet::new();
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    for line in verilog.lines() {
        map_identifiers(line, |w| {
            if w.contains('$') {
                renamed.entry(w.to_string()).or_insert_with(|| w.replace('$', SEPARATOR));
            } else {
                existing.insert(w.to_string());
            }
            None
        });
    }
    if let Some((old, new)) = renamed.iter().find(|(_, new)| existing.contains(*new)) {
        return Err(format!("cannot rename {old} to {new}: the name is taken"));
    }
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 16);
    for line in verilog.lines() {
        // rust-hdl names the module again after its `endmodule`, in a comment.
        match line.strip_prefix("endmodule // ") {
            Some(name) => out.push_str(&format!("endmodule // {}", renamed.get(name).map_or(name, String::as_str))),
            None => out.push_str(&map_identifiers(line, |w| renamed.get(w).cloned())),
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_identifiers_but_not_tasks_literals_or_comments() {
        let v = "module top$r(d, q); // top$r: a register\n    q = r$q$x + 32'hdead;\n    $display(\"%d\", a$b);\nendmodule // top$r\n";
        let out = plain_names(v).unwrap();
        assert_eq!(
            out,
            "module top__r(d, q); // top$r: a register\n    q = r__q__x + 32'hdead;\n    $display(\"%d\", a__b);\nendmodule // top__r\n"
        );
    }

    #[test]
    fn refuses_to_merge_two_names() {
        let v = "    a$b = 1'b0;\n    a__b = 1'b1;\n";
        assert_eq!(plain_names(v), Err("cannot rename a$b to a__b: the name is taken".to_string()));
    }
}

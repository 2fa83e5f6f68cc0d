//! Printing a list on stdout as `hangar token list` and `hangar remote list`
//! do: pretty JSON with `--json` (for scripts), else one tab-separated line
//! per item, or a hint when there is none.

use std::io::Write;

use serde::Serialize;

/// Print `items` to stdout; `Err` is the message to show.
pub(crate) fn print<T: Serialize>(
    items: &[T],
    json: bool,
    empty: &str,
    line: impl Fn(&T) -> String,
) -> Result<(), String> {
    let text = if json {
        serde_json::to_string_pretty(items).map_err(|e| e.to_string())?
    } else if items.is_empty() {
        empty.to_owned()
    } else {
        items.iter().map(line).collect::<Vec<_>>().join("\n")
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| format!("writing to stdout: {e}"))
}

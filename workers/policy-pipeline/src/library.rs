//! Example libraries (known attacks, out-of-domain requests): JSONL files of examples that the
//! embedding model compares questions with. One setting names them: `builtin` (shipped with
//! the workers), `none`, or a file.

use serde::de::DeserializeOwned;

/// Why a library could not be read: where from, and what was wrong (with the line).
#[derive(Debug)]
pub(crate) struct Unreadable {
    pub(crate) path: String,
    pub(crate) reason: String,
}

/// The rows of the library `setting` names, with their line numbers (from 1); `builtin` is
/// `builtin_text`. Blank lines are skipped.
pub(crate) fn rows<T: DeserializeOwned>(
    setting: &str,
    builtin_text: &str,
) -> Result<Vec<(usize, T)>, Unreadable> {
    let fail = |reason: String| Unreadable {
        path: setting.to_string(),
        reason,
    };
    let text = match setting {
        "none" => return Ok(Vec::new()),
        "builtin" => builtin_text.to_string(),
        path => std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?,
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line)
                .map(|row| (i + 1, row))
                .map_err(|e| fail(format!("line {}: {e}", i + 1)))
        })
        .collect()
}

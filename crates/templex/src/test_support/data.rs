//! Finding the shared evaluation data: used by the unit tests and, through `#[path]`, by the
//! integration tests (`tests/common`), so that both find and skip it the same way.

use std::path::PathBuf;

/// The shared evaluation data (`TEMPLEX_DATA`, else `../shared/data` beside the repo).
///
/// Returns `None` with a visible notice when absent, unless `TEMPLEX_REQUIRE_DATA` is set
/// (CI sets it), in which case the test fails.
pub(crate) fn data_dir() -> Option<PathBuf> {
    let candidates = std::env::var_os("TEMPLEX_DATA")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::iter::once(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        ));
    for c in candidates {
        if c.join("sites.json").is_file() {
            return Some(c);
        }
    }
    if std::env::var_os("TEMPLEX_REQUIRE_DATA").is_some() {
        panic!("TEMPLEX_REQUIRE_DATA is set but the shared data was not found (set TEMPLEX_DATA)");
    }
    eprintln!(
        "NOTICE: skipping: shared evaluation data not found (set TEMPLEX_DATA or place it at ../shared/data)"
    );
    None
}

/// All `.html`/`.htm` files (and wget `…html@…` names) below `dir`, sorted.
pub(crate) fn html_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains(".htm"))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

//! Shared helpers of the CLI's end-to-end tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `templex` binary under test.
pub fn templex() -> Command {
    Command::new(env!("CARGO_BIN_EXE_templex"))
}

/// The bundled example site.
pub fn example_site() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
}

/// The output of a command that must succeed (its stderr in the failure message).
pub fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The shared evaluation data, as the library's tests find it (`TEMPLEX_DATA`, else
/// `../shared/data` beside the repository); `TEMPLEX_REQUIRE_DATA` turns absence into failure.
pub fn data_dir() -> Option<PathBuf> {
    let candidates = std::env::var_os("TEMPLEX_DATA")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::iter::once(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        ));
    for c in candidates {
        if c.join("gold").is_dir() && c.join("sites.json").is_file() {
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

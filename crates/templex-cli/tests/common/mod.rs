//! Shared helpers of the CLI's end-to-end tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

// The shared evaluation data, found and skipped as the library's tests do.
#[path = "../../../templex/src/test_support/data.rs"]
mod data;

pub(crate) use data::data_dir;

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

//! End-to-end tests of the `templex` binary, in one test binary so that the suite links once.
//!
//! `cargo test -p templex-cli --test it <module>::` runs one module's tests.

#[path = "../common/mod.rs"]
mod common;

mod batch;
mod cli;
mod content;
mod dedup;
mod eval;
mod pagelevel;

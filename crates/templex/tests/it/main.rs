//! Integration tests of the library, in one binary so that the suite links once.
//!
//! `cargo test -p templex --test it <module>::` runs one module's tests.

#[path = "../common/mod.rs"]
mod common;

mod batch;
mod eval;
mod fuzz_regressions;
mod links_mirror;
mod pagelevel;
mod template_site;
mod warc_source;

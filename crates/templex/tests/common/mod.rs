//! Shared helpers for integration tests.
#![allow(dead_code)]

#[path = "../../src/test_support/data.rs"]
mod data;

pub(crate) use data::{data_dir, html_files};

/// Evaluate a configuration of [`templex::extract_template`] on the dev gold
/// (`None`, with the notice, when the shared data is absent); prints the table.
pub fn eval_dev_gold(config: &templex::TemplateConfig) -> Option<templex::eval::EvalReport> {
    let data = data_dir()?;
    let detect = |source: &templex::sources::MirrorSource, url: &url::Url| {
        templex::extract_template(source, url, config)
            .map(templex::eval::Prediction::from)
            .map_err(|e| e.to_string())
    };
    let report = templex::eval::evaluate(&data, &data.join("gold"), &detect).unwrap();
    eprintln!("{report}");
    Some(report)
}

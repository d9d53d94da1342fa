//! Helpers shared by the unit tests: the evaluation data, reproducible randomness.

mod data;
pub(crate) mod rng;

pub(crate) use data::{data_dir, html_files};

#[cfg(feature = "eval")]
/// Evaluate a configuration of [`crate::extract_template`] on the dev gold
/// (`None`, with the notice, when the shared data is absent); prints the table.
pub(crate) fn eval_dev_gold(config: &crate::TemplateConfig) -> Option<crate::eval::EvalReport> {
    let data = data_dir()?;
    let detect = |source: &crate::source::MirrorSource, url: &url::Url| {
        crate::extract_template(source, url, config)
            .map(crate::eval::Prediction::from)
            .map_err(|e| e.to_string())
    };
    let report = crate::eval::evaluate(&data, &data.join("gold"), &detect).unwrap();
    eprintln!("{report}");
    Some(report)
}

//! PAGELEVEL as a template method: the page-level detector ([`crate::pagelevel`]: node
//! features, the classifier, tree isotonic smoothing, the classifier's training on SITELEVEL
//! labels) run on the key page alone. The detector is shared: TemEx and HybEx fall back to
//! it, HybEx's vote asks it, and page-level content reads its verdicts.

use std::time::{Duration, Instant};

use url::Url;

use super::{Method, TemplateConfig, TemplateResult, lone_result};
use crate::dom::Document;

/// PAGELEVEL on the key page with the built-in model.
pub(super) fn pagelevel_template(
    key_url: &Url,
    doc: Document,
    key_page: Duration,
    config: &TemplateConfig,
) -> TemplateResult {
    let t = Instant::now();
    let r = crate::pagelevel::detect(&doc, Some(key_url), config.model(), &config.pagelevel);
    let mut result = lone_result(Method::PageLevel, key_url, doc, r.template, key_page);
    result.segments = r.segments;
    result.timings.mapping = t.elapsed();
    result
}

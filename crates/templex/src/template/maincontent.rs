//! Main content as a template method: no template detection, the page-level main-content
//! extractor's choice ([`crate::page`]) is the content and the rest of the key page is
//! template.

use std::time::{Duration, Instant};

use url::Url;

use super::{Method, TemplateResult, lone_result};
use crate::dom::Document;
use crate::extract::ContentConfig;
use crate::page::page_level_content;

/// No template detection: what the page-level main-content extractor leaves out of the
/// content is template (elements holding content stay out of the template).
pub(super) fn maincontent_template(
    key_url: &Url,
    doc: Document,
    key_page: Duration,
) -> TemplateResult {
    let t = Instant::now();
    let keep = page_level_content(&doc, Some(key_url), &ContentConfig::default()).keep;
    let template = crate::page::outside_content(&doc, &keep);
    let mut result = lone_result(Method::MainContent, key_url, doc, template, key_page);
    result.timings.mapping = t.elapsed();
    result
}

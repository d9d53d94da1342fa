//! Outputs of a template extraction: the annotated page (HybEx API format), a reusable
//! HTML template, a JSON report, the page's non-template text, the content record, and an
//! inert view of the page for display.

mod record;
mod text;
mod view;

pub use record::{ContentRecord, Rendering};
pub use text::{TextOptions, visible_text};
pub use view::{ViewMarks, view_html};

use std::borrow::Cow;

use markup5ever::{QualName, local_name, ns};
use serde::Serialize;
use url::Url;

use crate::dom::{Attr, Document, NodeData, NodeId, SerializeHook};
use crate::links::base_url;
use crate::template::TemplateResult;

/// The class added to template elements in annotated output. Evaluation tools rely on it.
pub(crate) const TEMPLATE_CLASS: &str = "template_node";

struct Annotate<'a> {
    template: &'a [bool],
}

impl SerializeHook for Annotate<'_> {
    fn attrs<'a>(&self, doc: &'a Document, id: NodeId, attrs: &'a [Attr]) -> Cow<'a, [Attr]> {
        if !self.template.get(id.index()).copied().unwrap_or(false) || doc.element(id).is_none() {
            return Cow::Borrowed(attrs);
        }
        let mut out = attrs.to_vec();
        match out
            .iter_mut()
            .find(|a| a.name.ns == ns!() && a.name.local == local_name!("class"))
        {
            Some(a) => {
                if !a
                    .value
                    .split_ascii_whitespace()
                    .any(|c| c == TEMPLATE_CLASS)
                {
                    let v = if a.value.trim().is_empty() {
                        TEMPLATE_CLASS.to_string()
                    } else {
                        format!("{} {TEMPLATE_CLASS}", a.value)
                    };
                    a.value = v.into();
                }
            }
            None => out.push(Attr {
                name: QualName::new(None, ns!(), local_name!("class")),
                value: TEMPLATE_CLASS.into(),
            }),
        }
        Cow::Owned(out)
    }
}

/// The key page with `class="template_node"` added to every template element; nothing else
/// changes in the DOM.
pub fn annotated_html(doc: &Document, template: &[bool]) -> String {
    let mut out = String::with_capacity(doc.text_buffer().len() * 2);
    doc.write_html(NodeId::ROOT, &Annotate { template }, &mut out);
    out
}

/// Attributes holding URLs, made absolute in the reusable template.
fn is_url_attr(name: &str) -> bool {
    matches!(
        name,
        "href"
            | "src"
            | "action"
            | "poster"
            | "background"
            | "cite"
            | "data"
            | "formaction"
            | "longdesc"
    )
}

struct TemplateOnly<'a> {
    template: &'a [bool],
    head: Option<NodeId>,
    /// `<html>` and `<body>`.
    frame: [Option<NodeId>; 2],
    base: Url,
}

impl TemplateOnly<'_> {
    fn is_style(doc: &Document, id: NodeId) -> bool {
        doc.element(id).is_some_and(|e| {
            e.is(&local_name!("style"))
                || (e.is(&local_name!("link"))
                    && e.attr("rel")
                        .is_some_and(|r| r.to_ascii_lowercase().contains("stylesheet")))
        })
    }
}

impl SerializeHook for TemplateOnly<'_> {
    fn keep(&self, doc: &Document, id: NodeId) -> bool {
        if self.head.is_some_and(|h| doc.contains(h, id)) {
            // The head renders the template: keep it, except <base> (URLs become absolute).
            return doc.element(id).is_none_or(|e| !e.is(&local_name!("base")));
        }
        match &doc.node(id).data {
            NodeData::Document | NodeData::Doctype(_) => true,
            NodeData::Element(_) => {
                // <html> and <body> frame the template even when a method leaves them out of
                // it (SITELEVEL, PAGELEVEL and table chunks never mark the page's root
                // elements: they hold the content too).
                self.template.get(id.index()).copied().unwrap_or(false)
                    || Self::is_style(doc, id)
                    || self.frame.contains(&Some(id))
            }
            NodeData::Text(_) => {
                // Blank text keeps the layout readable; other text must be template.
                doc.text(id).is_some_and(|t| t.trim().is_empty())
                    || self.template.get(id.index()).copied().unwrap_or(false)
            }
            NodeData::Comment(_) | NodeData::ProcessingInstruction(_) => false,
        }
    }

    fn attrs<'a>(&self, _doc: &'a Document, _id: NodeId, attrs: &'a [Attr]) -> Cow<'a, [Attr]> {
        if !attrs
            .iter()
            .any(|a| is_url_attr(&a.name.local) || &*a.name.local == "srcset")
        {
            return Cow::Borrowed(attrs);
        }
        let mut out = attrs.to_vec();
        for a in &mut out {
            if is_url_attr(&a.name.local) {
                if let Ok(u) = self.base.join(a.value.trim()) {
                    a.value = u.to_string().into();
                }
            } else if &*a.name.local == "srcset" {
                let v: Vec<String> = a
                    .value
                    .split(',')
                    .map(|part| {
                        let part = part.trim();
                        let (u, rest) = part.split_once(char::is_whitespace).unwrap_or((part, ""));
                        let abs = self
                            .base
                            .join(u)
                            .map_or_else(|_| u.to_string(), |x| x.to_string());
                        if rest.is_empty() {
                            abs
                        } else {
                            format!("{abs} {}", rest.trim())
                        }
                    })
                    .collect();
                a.value = v.join(", ").into();
            }
        }
        Cow::Owned(out)
    }
}

/// A reusable HTML template: the key page without its content (non-template elements and
/// text removed), `<head>` and style sheets kept, URLs made absolute so it renders anywhere.
pub fn template_html(doc: &Document, template: &[bool], page_url: &Url) -> String {
    let hook = TemplateOnly {
        template,
        head: doc.head(),
        frame: [doc.html(), doc.body()],
        base: base_url(doc, page_url),
    };
    let mut out = String::new();
    doc.write_html(NodeId::ROOT, &hook, &mut out);
    out
}

/// The JSON report of `templex template --format json`.
#[derive(Debug, Serialize)]
pub struct TemplateReport {
    /// The key page.
    pub key_url: String,
    /// The method that produced the template.
    pub method: crate::method::Method,
    /// Whether PAGELEVEL stepped in for a site-level method that found no evidence.
    pub fallback: bool,
    /// Pages of the complete subdigraph the template was computed from.
    pub cs_pages: Vec<String>,
    /// Siblings refused by the template guard.
    pub rejected_pages: Vec<String>,
    /// Pages loaded, the key page included (attempts, failures included).
    pub pages_loaded: usize,
    /// Why the sibling search stopped.
    pub stop: crate::siblings::StopReason,
    /// Which rule chose `cs_pages` (`cs`, `cs_top_up`, `own_kind`, `none`).
    pub siblings: crate::siblings::SiblingRule,
    /// Absolute paths of the template elements inside `<body>`.
    pub template_paths: Vec<String>,
    /// Body elements, and how many are template.
    pub body_elements: usize,
    /// Template elements inside `<body>`.
    pub template_elements: usize,
    /// Milliseconds per phase.
    pub timings_ms: TimingsMs,
    /// Notes (fallbacks, small CS).
    pub notes: Vec<String>,
    /// Page-level segments (PAGELEVEL only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<crate::pagelevel::Segment>,
}

/// Phase timings in milliseconds.
#[derive(Debug, Serialize)]
pub struct TimingsMs {
    /// Key page load and parse.
    pub key_page: f64,
    /// Sibling search (loads, parses, guard mappings).
    pub siblings: f64,
    /// Voting and the template rule.
    pub mapping: f64,
    /// Everything.
    pub total: f64,
}

/// Build the JSON report of a result.
pub fn template_report(r: &TemplateResult) -> TemplateReport {
    let doc = &r.doc;
    let body: Vec<NodeId> = doc
        .body()
        .map(|b| {
            doc.descendants(b)
                .filter(|d| doc.element(*d).is_some())
                .collect()
        })
        .unwrap_or_default();
    let template_paths: Vec<String> = body
        .iter()
        .filter(|e| r.is_template(**e))
        .map(|e| doc.dom_path(*e))
        .collect();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    TemplateReport {
        key_url: r.key_url.to_string(),
        method: r.method,
        fallback: r.fallback,
        cs_pages: r.cs_pages.iter().map(Url::to_string).collect(),
        rejected_pages: r.rejected.iter().map(Url::to_string).collect(),
        pages_loaded: r.loads.attempts,
        stop: r.stop,
        siblings: r.siblings,
        body_elements: body.len(),
        template_elements: template_paths.len(),
        template_paths,
        timings_ms: TimingsMs {
            key_page: ms(r.timings.key_page),
            siblings: ms(r.timings.siblings),
            mapping: ms(r.timings.mapping),
            total: ms(r.timings.total),
        },
        notes: r.notes.clone(),
        segments: r.segments.clone(),
    }
}

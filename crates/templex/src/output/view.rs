//! An inert copy of a page for display beside its template: nothing in it runs, loads or
//! navigates, and every element says whether it is template, content or a page-level segment.
//!
//! Sanitizing here is a second line: the server also shows the copy in a sandboxed frame
//! under a restrictive Content-Security-Policy. What the copy must never do is reach the
//! page's origin from the viewer's browser, so scripts, frames, plugins, `<base>`, style
//! sheet links, refreshes and event handlers are dropped, and every URL-bearing attribute is
//! renamed to `data-tx-<name>` (kept for inspection, inert).

use std::borrow::Cow;

use markup5ever::{QualName, local_name, ns};

use crate::dom::{Attr, Document, NodeData, NodeId, SerializeHook};
use crate::pagelevel::Segment;

/// The attribute every template element carries in the view (`data-tx-t=""`).
pub(crate) const VIEW_TEMPLATE_ATTR: &str = "data-tx-t";
/// The attribute on template elements whose parent is not template (the shaded roots).
pub(crate) const VIEW_TEMPLATE_ROOT_ATTR: &str = "data-tx-troot";
/// The attribute on the roots of the extracted content (outlined).
pub(crate) const VIEW_CONTENT_ROOT_ATTR: &str = "data-tx-croot";
/// The attribute on page-level segment roots; its value is the smoothed score.
pub(crate) const VIEW_SEGMENT_ATTR: &str = "data-tx-seg";

/// What the view marks.
#[derive(Debug, Clone, Copy)]
pub struct ViewMarks<'a> {
    /// Template flags per node id.
    pub template: &'a [bool],
    /// Content flags per node id (the extracted main content), if known.
    pub content: Option<&'a [bool]>,
    /// Page-level segments (roots and scores).
    pub segments: &'a [Segment],
}

/// Tags whose whole subtree is left out of the view: they run code, embed other documents or
/// change how URLs resolve.
fn is_dropped(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "noscript"
            | "iframe"
            | "frame"
            | "frameset"
            | "object"
            | "embed"
            | "applet"
            | "base"
            | "link"
            | "portal"
            | "fencedframe"
    )
}

/// Attributes that make the browser fetch or navigate.
fn is_url_attr(name: &str) -> bool {
    matches!(
        name,
        "href"
            | "src"
            | "srcset"
            | "action"
            | "formaction"
            | "poster"
            | "background"
            | "data"
            | "codebase"
            | "cite"
            | "longdesc"
            | "ping"
            | "manifest"
            | "xlink:href"
            | "srcdoc"
            | "imagesrcset"
            | "lowsrc"
            | "dynsrc"
    )
}

struct Inert<'a> {
    marks: ViewMarks<'a>,
    /// Per node: content through and through (kept, and so is everything below it). A
    /// content mask also keeps the ancestors that lead to content; outlining those would
    /// outline the whole page.
    pure: Vec<bool>,
    /// Per node: a template element whose element descendants are all template.
    pure_template: Vec<bool>,
    /// Smoothed score per segment root, by node index.
    seg_score: Vec<Option<f64>>,
    html: Option<NodeId>,
    head: Option<NodeId>,
}

impl Inert<'_> {
    fn flag(v: &[bool], id: NodeId) -> bool {
        v.get(id.index()).copied().unwrap_or(false)
    }
}

fn attr(name: &str, value: String) -> Attr {
    Attr {
        name: QualName::new(None, ns!(), name.into()),
        value: value.into(),
    }
}

impl SerializeHook for Inert<'_> {
    fn keep(&self, doc: &Document, id: NodeId) -> bool {
        match &doc.node(id).data {
            NodeData::Element(e) => {
                if is_dropped(&e.name.local) {
                    return false;
                }
                // A refresh would navigate the frame to the page's origin.
                !(e.is(&local_name!("meta")) && e.attr("http-equiv").is_some())
            }
            // Comments could hide markup from the head-insertion step; they show nothing.
            NodeData::Comment(_) | NodeData::ProcessingInstruction(_) => false,
            _ => true,
        }
    }

    fn attrs<'a>(&self, doc: &'a Document, id: NodeId, attrs: &'a [Attr]) -> Cow<'a, [Attr]> {
        if Some(id) == self.head {
            return Cow::Owned(Vec::new());
        }
        if Some(id) == self.html {
            // Only a well-formed language tag survives on <html> (the view's own <meta> and
            // style go right after the <head> tag, found by its text).
            let lang = attrs
                .iter()
                .find(|a| &*a.name.local == "lang")
                .filter(|a| {
                    a.value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
                .cloned();
            return Cow::Owned(lang.into_iter().collect());
        }
        let mut out: Vec<Attr> = Vec::with_capacity(attrs.len() + 3);
        for a in attrs {
            let name: &str = &a.name.local;
            let lower = name.to_ascii_lowercase();
            if lower.starts_with("on") || lower.starts_with("data-tx-") {
                continue;
            }
            if is_url_attr(&lower) || a.name.ns != ns!() {
                out.push(attr(&format!("data-tx-{lower}"), a.value.to_string()));
                continue;
            }
            out.push(a.clone());
        }
        if Self::flag(self.marks.template, id) {
            out.push(attr(VIEW_TEMPLATE_ATTR, String::new()));
            // Shading is drawn on the highest elements that are template through and through:
            // a template wrapper around the content (methods mark <body>'s layout divs) would
            // otherwise shade the content too.
            let parent_pure = doc
                .parent(id)
                .is_some_and(|p| Self::flag(&self.pure_template, p));
            if Self::flag(&self.pure_template, id) && !parent_pure {
                out.push(attr(VIEW_TEMPLATE_ROOT_ATTR, String::new()));
            }
        }
        if Self::flag(&self.pure, id) && !doc.parent(id).is_some_and(|p| Self::flag(&self.pure, p))
        {
            out.push(attr(VIEW_CONTENT_ROOT_ATTR, String::new()));
        }
        if let Some(Some(score)) = self.seg_score.get(id.index()) {
            out.push(attr(VIEW_SEGMENT_ATTR, format!("{score:.3}")));
        }
        Cow::Owned(out)
    }
}

/// Per node: kept by `content`, and so is every element and non-blank text below it. One
/// pass, children before parents (ids are in document order).
fn pure_content(doc: &Document, content: &[bool]) -> Vec<bool> {
    let kept = |id: NodeId| content.get(id.index()).copied().unwrap_or(false);
    let mut pure: Vec<bool> = doc.ids().map(kept).collect();
    for id in doc.ids().rev() {
        let counts =
            doc.element(id).is_some() || doc.text(id).is_some_and(|t| !t.trim().is_empty());
        if !pure[id.index()] && counts {
            if let Some(p) = doc.parent(id) {
                pure[p.index()] = false;
            }
        }
    }
    // Only elements are outlined; <html> and <body> would outline the page.
    for id in doc.ids() {
        if doc.element(id).is_none() || Some(id) == doc.html() || Some(id) == doc.body() {
            pure[id.index()] = false;
        }
    }
    pure
}

/// Per node: a template element all of whose element descendants are template too (not
/// <html> or <body>). Children before parents.
fn pure_template(doc: &Document, template: &[bool]) -> Vec<bool> {
    let mut pure: Vec<bool> = doc
        .ids()
        .map(|id| doc.element(id).is_some() && template.get(id.index()).copied().unwrap_or(false))
        .collect();
    for id in doc.ids().rev() {
        if doc.element(id).is_some() && !pure[id.index()] {
            if let Some(p) = doc.parent(id) {
                pure[p.index()] = false;
            }
        }
    }
    for frame in [doc.html(), doc.body()].into_iter().flatten() {
        pure[frame.index()] = false;
    }
    pure
}

/// The overlay style sheet of the view; the viewer turns its parts on with classes on
/// `<html>`: `tx-show-template`, `tx-show-content`, `tx-show-segments`.
pub(crate) const VIEW_STYLE: &str = "\
html.tx-show-template [data-tx-troot]{box-shadow:inset 0 0 0 100000px rgba(255,136,0,.30)!important;}\
html.tx-show-content [data-tx-croot]{outline:3px solid #0a8f5a!important;outline-offset:-3px!important;}\
html.tx-show-segments [data-tx-seg]{outline:2px dashed #6a3fd0!important;outline-offset:-1px!important;}\
";

/// The page as an inert HTML document with the view's marks, `csp` as its
/// Content-Security-Policy `<meta>` and `VIEW_STYLE`, all overlays on.
pub fn view_html(doc: &Document, marks: ViewMarks<'_>, csp: &str) -> String {
    let mut seg_score = vec![None; doc.len()];
    for s in marks.segments {
        if let Some(slot) = seg_score.get_mut(s.root.index()) {
            *slot = Some(s.score);
        }
    }
    let pure = marks
        .content
        .map_or_else(Vec::new, |c| pure_content(doc, c));
    let pure_template = pure_template(doc, marks.template);
    let hook = Inert {
        marks,
        pure,
        pure_template,
        seg_score,
        html: doc.html(),
        head: doc.head(),
    };
    let mut out = String::with_capacity(doc.text_buffer().len() * 2);
    doc.write_html(NodeId::ROOT, &hook, &mut out);
    let csp = csp.replace('"', "&quot;");
    let inject = format!(
        "<meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\
         <style id=\"tx-overlay\">{VIEW_STYLE}</style>"
    );
    // <head> has no attributes in the view and nothing before it can contain its text (no
    // comments, <html> keeps only a plain `lang`).
    match out.find("<head>") {
        Some(i) => out.insert_str(i + "<head>".len(), &inject),
        None => out.insert_str(0, &inject),
    }
    if let Some(i) = out.find("<html") {
        let end = out[i..].find('>').map_or(i, |e| i + e);
        out.insert_str(
            end,
            " class=\"tx-show-template tx-show-content\" data-tx-view=\"1\"",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(html: &str, template_tags: &[&str]) -> String {
        let doc = crate::dom::parse_str(html);
        let template: Vec<bool> = doc
            .ids()
            .map(|id| {
                doc.element(id)
                    .is_some_and(|e| template_tags.contains(&&*e.name.local))
            })
            .collect();
        view_html(
            &doc,
            ViewMarks {
                template: &template,
                content: None,
                segments: &[],
            },
            "default-src 'none'",
        )
    }

    #[test]
    fn nothing_runs_loads_or_navigates() {
        let v = view(
            r#"<!-- <head> --><html lang="en" onload="x()"><head><base href="http://evil/">
            <meta http-equiv="refresh" content="0;url=http://evil/"><link rel=stylesheet href="/s.css">
            <script>alert(1)</script></head><body onload="alert(2)">
            <a href="javascript:alert(3)">a</a><img src="http://origin/i.png" srcset="x 1x">
            <iframe src="http://evil/"></iframe><object data="x.swf"></object>
            <form action="http://evil/"><button formaction="http://evil/">b</button></form>
            <svg><a xlink:href="http://evil/">s</a></svg><noscript><img src=x></noscript>
            <div style="color:red">kept</div></body></html>"#,
            &[],
        );
        for bad in [
            "<script",
            "alert(1)",
            "alert(2)",
            "<iframe",
            "<object",
            "<base",
            "<link",
            "refresh",
            " href=",
            " src=",
            " srcset=",
            " action=",
            " formaction=",
            "onload",
            "<noscript",
            "<!--",
        ] {
            assert!(!v.contains(bad), "{bad} left in {v}");
        }
        assert!(v.contains("data-tx-href=\"javascript:alert(3)\""));
        assert!(v.contains("style=\"color:red\""));
        assert!(v.contains("Content-Security-Policy"));
        assert!(v.starts_with("<html") || v.contains("<head><meta charset"));
    }

    #[test]
    fn template_roots_and_every_template_element_are_marked() {
        let v = view(
            "<html><body><nav><ul><li>a</li></ul></nav><main><p>text</p></main></body></html>",
            &["nav", "ul", "li"],
        );
        assert_eq!(v.matches("data-tx-t=\"\"").count(), 3, "{v}");
        assert_eq!(v.matches("data-tx-troot=\"\"").count(), 1, "{v}");
        assert!(v.contains("<nav data-tx-t=\"\" data-tx-troot=\"\">"), "{v}");
    }

    #[test]
    fn deep_pages_are_serialized_without_recursion() {
        // Deep enough to overflow a recursive writer's stack; parsing deeper pages is slow
        // today (the hostile-input issue), not the view.
        let html = "<div>".repeat(20_000);
        let v = view(&html, &["div"]);
        assert_eq!(v.matches("data-tx-troot=\"\"").count(), 1);
    }
}

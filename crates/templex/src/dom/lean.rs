//! Lean parsing for text extraction: the contents of `<script>`, `<style>` and `<svg>`
//! elements and of comments are cut before html5ever sees them.
//!
//! On today's pages half of the bytes are inline scripts, JSON and CSS, and the tokenizer
//! walks them line by line into text nodes nobody reads. A small scanner that follows the
//! tokenizer's states where they matter — tags and their quoted attribute values, comments,
//! CDATA sections, and the raw-text and RCDATA elements whose contents are not markup —
//! finds where each script, style or SVG element ends and leaves its contents out. The
//! elements themselves stay, empty (comments too), so the tree keeps its shape wherever
//! there is text to read.
//!
//! Tags are walked with the tokenizer's own attribute states, and SVG and MathML content
//! with a stack of open elements (CDATA sections, HTML tags that break out). Wherever the
//! scanner cannot be sure how the tokenizer reads what follows — a `<!--` inside a script
//! (it can make the tokenizer skip a `</script>`), markup that leaves foreign content some
//! other way than by its end tag, an unclosed element — it stops cutting and passes the
//! rest through unchanged: the result is then exactly what a full parse gives.

use std::borrow::Cow;

use memchr::memchr;

use super::decode::decode;
use super::tree::Document;

/// Parse a page for its text: like [`parse_bytes`](super::parse_bytes), but the contents of
/// `<script>`, `<style>` and `<svg>` elements and of comments are left out (the elements and
/// comments stay, empty), and the page is read as a browser without scripts reads it:
/// `<noscript>` elements hold markup and are shown. Script-built pages serve their text to
/// crawlers that way (Discourse forums put every post there).
pub fn parse_bytes_lean(bytes: &[u8], transport_charset: Option<&str>) -> Document {
    parse_decoded(bytes, transport_charset, false)
}

/// Parse a page for its text only: like [`parse_bytes_lean`], and every element keeps only
/// the attributes that text extraction, template clustering and table chunks read
/// (`TEXT_ATTRIBUTES`); `<a href>` keeps its name without the URL.
///
/// Two thirds of a page's markup (scripts and styles cut) is inside tags, and the parser
/// allocates every attribute: data attributes, ARIA state, `srcset`s and link targets are
/// parsed for nothing. What the text-only methods (table chunks, page-level extraction) read is
/// the same as with [`parse_bytes_lean`]; methods that compare attributes (SITELEVEL, the
/// mappings) would see fewer of them, so they use [`parse_bytes_lean`].
pub fn parse_bytes_text(bytes: &[u8], transport_charset: Option<&str>) -> Document {
    parse_decoded(bytes, transport_charset, true)
}

fn parse_decoded(bytes: &[u8], transport_charset: Option<&str>, prune: bool) -> Document {
    let decoded = decode(bytes, transport_charset);
    let mut json_ld = Vec::new();
    let html = lean_html_with(&decoded.text, prune, Some(&mut json_ld));
    let (mut doc, _) = super::tokenize::parse_document(
        super::sink::Sink::for_input(&html, usize::MAX),
        &html,
        false,
    );
    doc.json_ld = json_ld.into();
    doc.encoding = decoded.encoding;
    doc.encoding_source = decoded.source;
    doc
}

/// The attributes [`parse_bytes_text`] keeps (ASCII case-insensitive): what the text path
/// reads (visibility, roles, class and id hints, titles in `<meta>`, canonical links, image
/// names) and what the template fingerprint hashes (class, id).
pub(crate) const TEXT_ATTRIBUTES: &[&str] = &[
    "class",
    "id",
    "role",
    "style",
    "hidden",
    "aria-hidden",
    "aria-roledescription",
    "aria-controls",
    "href",
    "rel",
    "src",
    "data-src",
    "data-lazy-src",
    "alt",
    "type",
    "name",
    "property",
    "content",
    "charset",
    "http-equiv",
    // The page's metadata: its language, `itemprop` author and date, `<time datetime>`.
    "lang",
    "itemprop",
    "datetime",
    // A page's microdata item: a product's page declares itself so.
    "itemscope",
    "itemtype",
];

/// `html` with the contents of its `<script>`, `<style>` and `<svg>` elements and of its
/// comments removed.
pub fn strip_raw_text(html: &str) -> Cow<'_, str> {
    lean_html(html, false)
}

/// [`strip_raw_text`], and with `prune`, start tags cut to their [`TEXT_ATTRIBUTES`].
pub(super) fn lean_html(html: &str, prune: bool) -> Cow<'_, str> {
    lean_html_with(html, prune, None)
}

/// [`lean_html`], and the contents of the `<script type="application/ld+json">` elements it
/// cuts pushed to `json_ld`: structured data (a page's title, author and dates) that
/// nothing else in the page states as plainly.
pub(super) fn lean_html_with<'h>(
    html: &'h str,
    prune: bool,
    mut json_ld: Option<&mut Vec<String>>,
) -> Cow<'h, str> {
    let b = html.as_bytes();
    let mut out: Option<String> = None;
    // Bytes before `copied` are in `out` (or unchanged, while `out` is `None`).
    let mut copied = 0;
    let mut i = 0;
    // Of the start tag being pruned: the attributes kept, as byte ranges.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    // Where the `<noscript>` the scanner is in ends, if it is in one.
    let mut noscript_end: Option<usize> = None;
    let mut end_tags = EndTags::default();
    while let Some(off) = memchr(b'<', &b[i..]) {
        let lt = i + off;
        let rest = &b[lt..];
        if rest.starts_with(b"<!--") {
            // The tokenizer takes comments a character at a time; their text is never
            // content. `<!---->` keeps the comment node.
            let Some((close, after)) = comment_end(b, lt + 4) else {
                break;
            };
            if close > lt + 4 {
                let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
                o.push_str(&html[copied..lt + 4]);
                copied = close;
            }
            i = after;
            continue;
        }
        // Outside comments this loop only sees HTML content (SVG and MathML are skipped
        // whole below), where `<!…>`, `<?…>` and `<![CDATA[…` are all bogus comments that
        // the first `>` ends.
        if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            i = memchr(b'>', &b[lt..]).map_or(b.len(), |e| lt + e + 1);
            continue;
        }
        let end_tag = rest.starts_with(b"</");
        let name_start = lt + if end_tag { 2 } else { 1 };
        if !b.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            i = match b.get(name_start) {
                // `</` then neither a letter nor `>` opens a bogus comment, which the
                // first `>` ends: nothing in it is a tag. (`</>` is dropped; `<` then no
                // letter is text.)
                Some(&c) if end_tag && c != b'>' => {
                    memchr(b'>', &b[name_start..]).map_or(b.len(), |e| name_start + e + 1)
                }
                _ => lt + 1,
            };
            continue;
        }
        let name_end = name_start
            + b[name_start..]
                .iter()
                .position(|c| c.is_ascii_whitespace() || *c == b'/' || *c == b'>')
                .unwrap_or(b.len() - name_start);
        let name = &b[name_start..name_end];
        kept.clear();
        let mut dropped = false;
        let anchor = name.eq_ignore_ascii_case(b"a");
        let walked = walk_tag(b, name_end, |start, name_to, value_to| {
            if !prune || end_tag {
                return;
            }
            let attr = &b[start..name_to];
            if !TEXT_ATTRIBUTES
                .iter()
                .any(|k| attr.eq_ignore_ascii_case(k.as_bytes()))
            {
                dropped = true;
            } else if anchor && attr.eq_ignore_ascii_case(b"href") {
                // Whether a link has a target is all the text path asks of it.
                dropped |= value_to > name_to;
                kept.push((start, name_to));
            } else {
                kept.push((start, value_to));
            }
        });
        // Input that ends inside a tag ends the page: the tokenizer drops the tag.
        let Some((tag_end, self_closing)) = walked else {
            break;
        };
        i = tag_end;
        if end_tag {
            continue;
        }
        if dropped {
            let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
            o.push_str(&html[copied..name_end]);
            for &(from, to) in &kept {
                o.push(' ');
                o.push_str(&html[from..to]);
            }
            // The space keeps a last unquoted value from taking the `/`.
            o.push_str(if self_closing { " />" } else { ">" });
            copied = tag_end;
        }
        let is = |n: &str| name.eq_ignore_ascii_case(n.as_bytes());
        if is("plaintext") {
            break;
        }
        // SVG and MathML are foreign content, where the tokenizer follows other rules
        // (CDATA sections, no raw-text elements, HTML tags that break out). Their extent
        // is found by [`foreign_end`]; where it cannot be sure, the rest of the page goes
        // through as it is. Inline SVG (icons, charts) holds no content: it is cut, like
        // scripts; MathML is left whole. A self-closed `<svg/>` has nothing inside.
        let lower = name[0].to_ascii_lowercase();
        if (lower == b's' && is("svg")) || (lower == b'm' && is("math")) {
            if self_closing {
                continue;
            }
            let Some(close) = foreign_end(b, tag_end, name) else {
                break;
            };
            if lower == b's' {
                let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
                o.push_str(&html[copied..tag_end]);
                copied = close;
            }
            i = close;
            continue;
        }
        // Most tags are none of these: their first letters rule them out cheaply.
        let raw = if matches!(lower, b's' | b't' | b'x' | b'i' | b'n') {
            [
                "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
            ]
            .into_iter()
            .find(|n| is(n))
        } else {
            None
        };
        if lower == b'n' && is("noscript") && noscript_end.is_none_or(|e| e < tag_end) {
            noscript_end = end_tags.find(b, tag_end, "noscript");
        }
        let Some(raw) = raw else { continue };
        let cut = matches!(raw, "script" | "style");
        let close = end_tags.find(b, tag_end, raw);
        // An element whose text no reader sees (an iframe's fallback), opened in a
        // `<noscript>` and not closed in it, ends with it: a browser that runs scripts reads
        // the `<noscript>` as text that its end tag ends, whatever is in it. Read without
        // scripts, a self-closed `<iframe/>` (not self-closing in HTML) would otherwise take
        // the rest of the page for its text (render.com's page after its tag manager's
        // `<noscript><iframe … /></noscript>`).
        if let Some(end) = noscript_end.filter(|e| {
            *e >= tag_end
                && matches!(raw, "iframe" | "noembed" | "noframes")
                && close.is_none_or(|c| c > *e)
        }) {
            let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
            o.push_str(&html[copied..end]);
            o.push_str("</");
            o.push_str(raw);
            o.push('>');
            copied = end;
            i = end;
            continue;
        }
        let Some(close) = close else {
            // Never closed: everything after is its text.
            if cut {
                let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
                o.push_str(&html[copied..tag_end]);
                copied = b.len();
            }
            break;
        };
        if cut {
            // `<!--` in a script can hide its `</script>` (the double-escaped states):
            // from here on, the page goes through as it is.
            if raw == "script" && find(&b[..close], tag_end, b"<!--").is_some() {
                break;
            }
            if let Some(ld) = json_ld.as_deref_mut()
                && raw == "script"
                && is_json_ld(&b[lt..tag_end])
            {
                ld.push(html[tag_end..close].to_string());
            }
            let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
            o.push_str(&html[copied..tag_end]);
            copied = close;
        }
        i = close;
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut o) => {
            o.push_str(&html[copied..]);
            Cow::Owned(o)
        }
    }
}

/// Walk the attributes of the tag whose name ends at `from` the way the HTML tokenizer
/// does (before and after attribute name, a name that may start with `=`, quoted and
/// unquoted values, the `/` of self-closing tags), calling `each(start, name_end,
/// value_end)` for each. One past the tag's `>` and whether it is self-closing; `None`
/// when the input ends inside the tag.
fn walk_tag(
    b: &[u8],
    from: usize,
    mut each: impl FnMut(usize, usize, usize),
) -> Option<(usize, bool)> {
    let is_space = |c: u8| matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
    let mut i = from;
    let mut self_closing = false;
    loop {
        // Before attribute name: whitespace, and `/` not followed by `>`.
        while i < b.len() && (is_space(b[i]) || (b[i] == b'/' && b.get(i + 1) != Some(&b'>'))) {
            i += 1;
        }
        match *b.get(i)? {
            b'>' => return Some((i + 1, self_closing)),
            b'/' => {
                self_closing = true;
                i += 1;
                continue;
            }
            _ => {}
        }
        self_closing = false;
        // Attribute name: its first character may be `=`.
        let start = i;
        i += 1;
        while i < b.len() && !is_space(b[i]) && !matches!(b[i], b'/' | b'>' | b'=') {
            i += 1;
        }
        let name_end = i;
        // After attribute name: `=` starts a value; anything else is the next attribute.
        let mut j = i;
        while j < b.len() && is_space(b[j]) {
            j += 1;
        }
        let mut value_end = name_end;
        if b.get(j) == Some(&b'=') {
            j += 1;
            while j < b.len() && is_space(b[j]) {
                j += 1;
            }
            value_end = match *b.get(j)? {
                q @ (b'"' | b'\'') => j + 1 + memchr(q, &b[j + 1..])? + 1,
                b'>' => j,
                _ => {
                    while j < b.len() && !is_space(b[j]) && b[j] != b'>' {
                        j += 1;
                    }
                    j
                }
            };
            i = value_end;
        }
        each(start, name_end, value_end);
    }
}

/// Start of the end tag that closes the SVG or MathML element `root` whose contents start
/// at `from`, following the tokenizer and tree builder through foreign content: CDATA
/// sections, comments, nested elements (a stack, since an end tag closes the nearest open
/// element of its name). `None` where the page leaves foreign content some other way — an
/// HTML tag that breaks out (`<p>`, `<div>`, `</br>`…), an end tag of no open element,
/// markup inside an integration point (`<foreignObject>`, `<title>`, `<mi>`…) — or where
/// the element is never closed: the caller then stops rewriting.
fn foreign_end(b: &[u8], from: usize, root: &[u8]) -> Option<usize> {
    // Start tags that take the parser back to HTML from foreign content.
    const BREAKOUT: &[&str] = &[
        "b",
        "big",
        "blockquote",
        "body",
        "br",
        "center",
        "code",
        "dd",
        "div",
        "dl",
        "dt",
        "em",
        "embed",
        "font",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "hr",
        "i",
        "img",
        "li",
        "listing",
        "menu",
        "meta",
        "nobr",
        "ol",
        "p",
        "pre",
        "ruby",
        "s",
        "small",
        "span",
        "strong",
        "strike",
        "sub",
        "sup",
        "table",
        "tt",
        "u",
        "ul",
        "var",
    ];
    // Elements whose contents are HTML again.
    const INTEGRATION: &[&str] = &[
        "foreignobject",
        "desc",
        "title",
        "mi",
        "mo",
        "mn",
        "ms",
        "mtext",
        "annotation-xml",
    ];
    let one_of = |n: &[u8], set: &[&str]| set.iter().any(|k| n.eq_ignore_ascii_case(k.as_bytes()));
    let mut open: Vec<&[u8]> = vec![root];
    let mut i = from;
    loop {
        let lt = i + memchr(b'<', &b[i..])?;
        let rest = &b[lt..];
        let in_html = open.last().is_some_and(|n| one_of(n, INTEGRATION));
        if rest.starts_with(b"<!--") {
            i = comment_end(b, lt + 4)?.1;
            continue;
        }
        if rest.starts_with(b"<![CDATA[") && !in_html {
            i = find(b, lt + 9, b"]]>")? + 3;
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            if in_html && rest.starts_with(b"<![CDATA[") {
                return None;
            }
            i = lt + 2 + memchr(b'>', &b[lt + 2..])? + 1;
            continue;
        }
        let end_tag = rest.starts_with(b"</");
        let name_start = lt + if end_tag { 2 } else { 1 };
        match b.get(name_start) {
            Some(c) if c.is_ascii_alphabetic() => {}
            Some(b'>') if end_tag => {
                i = name_start + 1;
                continue;
            }
            Some(_) if end_tag => {
                i = name_start + memchr(b'>', &b[name_start..])? + 1;
                continue;
            }
            _ => {
                i = lt + 1;
                continue;
            }
        }
        let name_end = name_start
            + b[name_start..]
                .iter()
                .position(|c| c.is_ascii_whitespace() || *c == b'/' || *c == b'>')?;
        let name = &b[name_start..name_end];
        let (end, self_closing) = walk_tag(b, name_end, |_, _, _| {})?;
        if end_tag {
            let at = open.iter().rposition(|n| n.eq_ignore_ascii_case(name))?;
            if at == 0 {
                return Some(lt);
            }
            open.truncate(at);
        } else {
            if in_html || one_of(name, BREAKOUT) {
                return None;
            }
            if !self_closing {
                open.push(name);
            }
        }
        i = end;
    }
}

/// Where the comment whose text starts at `from` ends: the start of its closing `-->` or
/// `--!>` (what html5ever copies stops there) and one past it. `<!-->` and `<!--->` are
/// complete empty comments.
fn comment_end(b: &[u8], from: usize) -> Option<(usize, usize)> {
    if b.get(from) == Some(&b'>') {
        return Some((from, from + 1));
    }
    if b.get(from..from + 2) == Some(b"->") {
        return Some((from, from + 2));
    }
    let mut i = from;
    loop {
        let dash = find(b, i, b"--")?;
        match b.get(dash + 2) {
            Some(b'>') => return Some((dash, dash + 3)),
            Some(b'!') if b.get(dash + 3) == Some(&b'>') => return Some((dash, dash + 4)),
            _ => i = dash + 1,
        }
    }
}

/// [`find_end_tag`] remembering its last answer per name: searches that start inside a
/// span already searched (each `<noscript>` or iframe left open in one, on a page that
/// repeats them) reuse it, so the scan stays linear in the page.
#[derive(Default)]
struct EndTags {
    /// Per name: where the last search started, and what it found.
    last: Vec<(&'static str, usize, Option<usize>)>,
}

impl EndTags {
    fn find(&mut self, b: &[u8], from: usize, name: &'static str) -> Option<usize> {
        if let Some(&(_, start, found)) = self.last.iter().find(|(n, ..)| *n == name)
            && start <= from
            && found.is_none_or(|f| from <= f)
        {
            return found;
        }
        let found = find_end_tag(b, from, name.as_bytes());
        match self.last.iter_mut().find(|(n, ..)| *n == name) {
            Some(entry) => *entry = (name, from, found),
            None => self.last.push((name, from, found)),
        }
        found
    }
}

/// Start of the first `</name` (any case) at or after `from` that ends a raw-text element:
/// followed by whitespace, `/` or `>`.
fn find_end_tag(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut i = from;
    while let Some(off) = find(b, i, b"</") {
        let after = off + 2 + name.len();
        if b.get(off + 2..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            && b.get(after)
                .is_some_and(|c| c.is_ascii_whitespace() || *c == b'/' || *c == b'>')
        {
            return Some(off);
        }
        i = off + 2;
    }
    None
}

/// Whether a `<script …>` start tag declares JSON-LD (`type="application/ld+json"`).
fn is_json_ld(tag: &[u8]) -> bool {
    tag.windows(7).any(|w| w.eq_ignore_ascii_case(b"ld+json"))
}

/// Position of `needle` in `b` at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, needle).map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{NodeId, parse_str};

    #[test]
    fn cuts_script_and_style_contents() {
        let html = "<p>a</p><script type=\"x\">if (a < b) { x = '</p>'; }</script><STYLE>p>a{}</style ><p>b</p>";
        assert_eq!(
            strip_raw_text(html),
            "<p>a</p><script type=\"x\"></script><STYLE></style ><p>b</p>"
        );
    }

    #[test]
    fn noscript_is_read_as_without_scripts() {
        // A forum's crawler view: the posts are in `<noscript>`, the app builds them.
        let html = "<body><div id=app></div><noscript><div class=post><p>First &lt;post&gt; \
                    here.</p><script>x()</script></div></noscript><p>after</p></body>";
        let lean = parse_bytes_lean(html.as_bytes(), None);
        let text = lean.visible_text(NodeId::ROOT);
        assert!(
            text.contains("First <post> here.") && text.contains("after"),
            "{text}"
        );
        assert!(!text.contains("x()"), "{text}");
        // Text in it is escaped again when serialized: it is text, not raw markup.
        assert!(
            lean.to_html().contains("First &lt;post&gt;"),
            "{}",
            lean.to_html()
        );
        // The full parse reads the page as a browser with scripts: the fallback is hidden.
        let full = parse_str(html);
        let text = full.visible_text(NodeId::ROOT);
        assert!(!text.contains("First") && text.contains("after"), "{text}");
    }

    #[test]
    fn an_iframe_left_open_in_noscript_ends_with_it() {
        // A tag manager's snippet with a self-closed iframe, which HTML does not close.
        let html = "<body><noscript><iframe src=gtm height=0 /></noscript>\
                    <div hidden id=S:1><p>Deploy your apps.</p></div><iframe>fallback</iframe>\
                    <p>after</p></body>";
        let lean = parse_bytes_lean(html.as_bytes(), None);
        let text = lean.visible_text(NodeId::ROOT);
        assert!(
            text.contains("Deploy your apps.") && text.contains("after"),
            "{text}"
        );
        // Snippets repeated, with an iframe closed far below: each ends with its noscript
        // (the searches for end tags remember their answers).
        let html = "<body><noscript><iframe/></noscript><p>one</p><noscript><iframe/></noscript>\
                    <p>two</p><noscript><iframe/></noscript><p>three</p><iframe>x</iframe><p>four</p>";
        let text = parse_bytes_lean(html.as_bytes(), None).visible_text(NodeId::ROOT);
        for w in ["one", "two", "three", "four"] {
            assert!(text.contains(w), "{w}: {text}");
        }
        // Closed in it, or outside any, an iframe's text is its own as the tokenizer reads it.
        for html in [
            "<noscript><iframe>a</iframe><p>b</p></noscript><p>c</p>",
            "<iframe><noscript></iframe><p>c</p>",
        ] {
            assert_eq!(
                outline(&without_scripting(html)),
                outline(&without_scripting(&lean_html(html, false))),
                "{html}"
            );
        }
    }

    #[test]
    fn leaves_lookalikes_alone() {
        for html in [
            "<p title=\"<script>\">x</p><!----><textarea><script>t</textarea>",
            "<title><style></title><scripts>keep</scripts>",
            "<p>a < b</p>",
        ] {
            assert_eq!(strip_raw_text(html), html);
        }
    }

    #[test]
    fn escaped_script_stops_cutting() {
        let html =
            "<script>a</script><script><!-- <script>x</script> --></script><script>b</script>";
        assert_eq!(
            strip_raw_text(html),
            "<script></script><script><!-- <script>x</script> --></script><script>b</script>"
        );
    }

    #[test]
    fn cuts_comments_and_svg() {
        assert_eq!(
            strip_raw_text(
                "<!-- <script> --><p>a</p><svg viewBox='0 0 1 1'><path d='M0'/></svg><svg/>b"
            ),
            "<!----><p>a</p><svg viewBox='0 0 1 1'></svg><svg/>b"
        );
        assert_eq!(
            strip_raw_text("<svg><svg><g/></svg><g/></svg><svg><![CDATA[</svg>]]></svg>"),
            "<svg></svg><svg></svg>"
        );
        // Markup that takes the parser back to HTML inside SVG or MathML, or an element
        // never closed: the rest goes through as it is.
        for html in [
            "<svg><p>a</p></svg><script>x</script>",
            "<svg><g></div></svg><script>x</script>",
            "<svg><foreignObject><b>a</b></foreignObject></svg><script>x</script>",
            "<math><mi><textarea></math></textarea></mi></math><script>x</script>",
            "<svg><g><script>x</script>",
        ] {
            assert_eq!(strip_raw_text(html), html);
        }
        assert_eq!(
            strip_raw_text("<math><mi>x</mi><mo>&lt;</mo></math><style>s</style>"),
            "<math><mi>x</mi><mo>&lt;</mo></math><style></style>"
        );
        assert_eq!(
            strip_raw_text("<!-->a<!--->b<!-- c --!>d<!-- e - -->f"),
            "<!-->a<!--->b<!----!>d<!---->f"
        );
    }

    #[test]
    fn unclosed_script_is_cut_to_the_end() {
        assert_eq!(strip_raw_text("<p>x</p><script>var a"), "<p>x</p><script>");
        assert_eq!(strip_raw_text("<p x='>"), "<p x='>");
    }

    /// A parse as the lean modes do it: no scripting, `<noscript>` holds markup.
    fn without_scripting(html: &str) -> Document {
        let sink = crate::dom::sink::Sink::for_input(html, usize::MAX);
        crate::dom::tokenize::parse_document(sink, html, false).0
    }

    /// The pruned parse has the same nodes as the unpruned one, and each element the
    /// unpruned one's attributes that [`TEXT_ATTRIBUTES`] keeps (`<a href>` without its URL),
    /// or all of them.
    fn assert_prunes_like_the_tokenizer(html: &str) {
        let full = without_scripting(&lean_html(html, false));
        let pruned = without_scripting(&lean_html(html, true));
        assert_eq!(full.len(), pruned.len(), "{html:?}");
        for i in 0..full.len() as u32 {
            let id = super::super::NodeId(i);
            let (a, b) = (&full.node(id).data, &pruned.node(id).data);
            match (a, b) {
                (super::super::NodeData::Element(a), super::super::NodeData::Element(b)) => {
                    assert_eq!(a.name, b.name, "{html:?}");
                    let want: Vec<(String, String)> = a
                        .attrs
                        .iter()
                        .filter(|x| TEXT_ATTRIBUTES.contains(&&*x.name.local))
                        .map(|x| {
                            let v = if &*a.name.local == "a" && &*x.name.local == "href" {
                                String::new()
                            } else {
                                x.value.to_string()
                            };
                            (x.name.local.to_string(), v)
                        })
                        .collect();
                    let all = |e: &super::super::Element| -> Vec<(String, String)> {
                        e.attrs
                            .iter()
                            .map(|x| (x.name.local.to_string(), x.value.to_string()))
                            .collect()
                    };
                    // A tag whose end the scanner places elsewhere than the tokenizer
                    // stays whole.
                    let got = all(b);
                    assert!(got == want || got == all(a), "{html:?}: {got:?} {want:?}");
                }
                (super::super::NodeData::Text(_), super::super::NodeData::Text(_)) => {
                    assert_eq!(full.text(id), pruned.text(id), "{html:?}")
                }
                _ => assert_eq!(
                    std::mem::discriminant(a),
                    std::mem::discriminant(b),
                    "{html:?}"
                ),
            }
        }
    }

    #[test]
    fn prunes_attributes_as_the_tokenizer_reads_them() {
        for html in [
            "<div class=a data-x='1' onclick=\"go('>')\" id=b>t</div>",
            "<a href=\"/x?a=1&amp;b=2\" title=t CLASS=c>l</a><A HREF=y>m</A>",
            "<img src=a.png srcset=\"a 1x, b 2x\" alt=\"A cat\"/><br/><input type=image/>",
            "<p =x class=y/z data-a = \"q\" data-b= r class=dup>u</p>",
            "<svg><path d='M0' /></svg><math><mi mathvariant=bold/></math>",
            "<p a=\"x\"b='y'c=z/>v</p><p/ id=i/ class=c / >w</p>",
            "<p title=\"unterminated>x</p>",
            "<p class='x",
            "<p\tclass\n=\x0c\"a\"\rhref=b>q</p><meta property=og:title content=T>",
            // Found by the property test in CI: `</<` opens a bogus comment.
            "</<a/v=\">\">",
            "x</ <p class=a>y</p></",
            "<![CDATA[--><script>]]><a -->",
            "<p class=<a <path/>",
            "<svg><![CDATA[ a ]]></svg><p class=c data-x=1>t<![CDATA[ > ]]><p class=d>",
        ] {
            assert_prunes_like_the_tokenizer(html);
        }
    }

    /// The nodes of `doc` outside scripts, styles and SVG, in document order, with their
    /// attributes and text (comments without theirs).
    fn outline(doc: &Document) -> Vec<String> {
        let cut = |id| {
            doc.element(id).is_some_and(|e| {
                e.name.ns == html5ever::ns!(svg) || matches!(&*e.name.local, "script" | "style")
            })
        };
        doc.ids()
            .filter(|&id| !cut(id) && !doc.ancestors(id).any(cut))
            .map(|id| match &doc.node(id).data {
                super::super::NodeData::Element(e) => {
                    let attrs: Vec<String> = e
                        .attrs
                        .iter()
                        .map(|a| format!("{}={:?}", a.name.local, a.value))
                        .collect();
                    format!("<{} {}>", e.name.local, attrs.join(" "))
                }
                super::super::NodeData::Text(_) => format!("{:?}", doc.text(id)),
                super::super::NodeData::Comment(_) => "<!---->".to_string(),
                other => format!("{:?}", std::mem::discriminant(other)),
            })
            .collect()
    }

    /// Random tag soup from the pieces the scanner must tell apart.
    fn tag_soup() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        proptest::collection::vec(
            proptest::sample::select(vec![
                "<",
                ">",
                "/",
                "=",
                "\"",
                "'",
                " ",
                "\n",
                "a",
                "p",
                "div",
                "img",
                "class",
                "href",
                "data-x",
                "alt",
                "title",
                "x",
                "&amp;",
                "</",
                "<a ",
                "<p ",
                "<img ",
                "<!--",
                "-->",
                "<script>",
                "</script>",
                "<svg>",
                "</svg>",
                "<textarea>",
                "</textarea>",
                "<title>",
                "<!",
                "<?",
                "<![CDATA[",
                "]]>",
                "\r",
                "\t",
                "A",
                "<math>",
                "</math>",
                "<mi>",
                "<desc>",
                "</desc>",
                "<b>",
                "<g>",
                "</g>",
                "<path/>",
                "</p>",
                "<style>",
                "<noscript>",
                "</noscript>",
            ]),
            0..100,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn prunes_any_tag_soup_like_the_tokenizer(html in tag_soup()) {
            assert_prunes_like_the_tokenizer(&html);
        }

        /// Whatever the lean parse leaves out is inside a script, a style, an SVG image or
        /// a comment: every other node is there, as a full parse without scripting has it.
        #[test]
        fn lean_parse_keeps_everything_but_scripts_styles_svg_and_comments(html in tag_soup()) {
            proptest::prop_assert_eq!(
                outline(&without_scripting(&html)),
                outline(&without_scripting(&lean_html(&html, false))),
                "{:?}",
                html
            );
        }
    }
}

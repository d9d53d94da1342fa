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
//! Where a script's end is ambiguous (a `<!--` inside it can make the tokenizer skip a
//! `</script>`), the scanner stops cutting and passes the rest through unchanged: the
//! result is then exactly what a full parse gives.

use std::borrow::Cow;

use memchr::memchr;

use super::decode::decode;
use super::parse::parse_str;
use super::tree::Document;

/// Parse a page for its text: like [`parse_bytes`](super::parse_bytes), but the contents of
/// `<script>`, `<style>` and `<svg>` elements and of comments are left out (the elements and
/// comments stay, empty).
pub fn parse_bytes_lean(bytes: &[u8], transport_charset: Option<&str>) -> Document {
    parse_decoded(bytes, transport_charset, false)
}

/// Parse a page for its text only: like [`parse_bytes_lean`], and every element keeps only
/// the attributes that text extraction, template clustering and table chunks read
/// ([`TEXT_ATTRIBUTES`]); `<a href>` keeps its name without the URL.
///
/// Two thirds of a page's markup (scripts and styles cut) is inside tags, which html5ever
/// tokenizes mostly a character at a time, allocating every attribute: data attributes,
/// ARIA state, `srcset`s and link targets are parsed for nothing (5.5 % of a batch run's
/// instructions). What the text-only methods (table chunks, page-level extraction) read is
/// the same as with [`parse_bytes_lean`]; methods that compare attributes (SITELEVEL, the
/// mappings) would see fewer of them, so they use [`parse_bytes_lean`].
pub fn parse_bytes_text(bytes: &[u8], transport_charset: Option<&str>) -> Document {
    parse_decoded(bytes, transport_charset, true)
}

fn parse_decoded(bytes: &[u8], transport_charset: Option<&str>, prune: bool) -> Document {
    let decoded = decode(bytes, transport_charset);
    let mut doc = parse_str(&lean_html(&decoded.text, prune));
    doc.encoding = decoded.encoding;
    doc.encoding_source = decoded.source;
    doc
}

/// The attributes [`parse_bytes_text`] keeps (ASCII case-insensitive): what the text path
/// reads (visibility, roles, class and id hints, titles in `<meta>`, canonical links, image
/// names) and what the template fingerprint hashes (class, id).
pub const TEXT_ATTRIBUTES: &[&str] = &[
    "class",
    "id",
    "role",
    "style",
    "hidden",
    "aria-hidden",
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
];

/// `html` with the contents of its `<script>`, `<style>` and `<svg>` elements and of its
/// comments removed.
pub fn strip_raw_text(html: &str) -> Cow<'_, str> {
    lean_html(html, false)
}

/// [`strip_raw_text`], and with `prune`, start tags cut to their [`TEXT_ATTRIBUTES`].
fn lean_html(html: &str, prune: bool) -> Cow<'_, str> {
    let b = html.as_bytes();
    let mut out: Option<String> = None;
    // Bytes before `copied` are in `out` (or unchanged, while `out` is `None`).
    let mut copied = 0;
    let mut i = 0;
    let mut svg_close: Option<usize> = None;
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
        if rest.starts_with(b"<![CDATA[") {
            i = find(b, lt + 9, b"]]>").map_or(b.len(), |e| e + 3);
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            i = memchr(b'>', &b[lt..]).map_or(b.len(), |e| lt + e + 1);
            continue;
        }
        let end_tag = rest.starts_with(b"</");
        let name_start = lt + if end_tag { 2 } else { 1 };
        if !b.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            i = lt + 1;
            continue;
        }
        let name_end = name_start
            + b[name_start..]
                .iter()
                .position(|c| c.is_ascii_whitespace() || *c == b'/' || *c == b'>')
                .unwrap_or(b.len() - name_start);
        let tag_end = tag_end(b, name_end);
        i = tag_end;
        if end_tag {
            continue;
        }
        let name = &b[name_start..name_end];
        if prune && tag_end > name_end {
            let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
            let mark = o.len();
            o.push_str(&html[copied..name_end]);
            if prune_attributes(html, name, name_end, tag_end, o) {
                copied = tag_end;
            } else {
                o.truncate(mark);
            }
        }
        let is = |n: &str| name.eq_ignore_ascii_case(n.as_bytes());
        if is("plaintext") {
            break;
        }
        // Most tags are none of these: their first letters rule them out cheaply.
        let raw = if matches!(
            name[0].to_ascii_lowercase(),
            b's' | b't' | b'x' | b'i' | b'n'
        ) {
            [
                "script", "style", "svg", "textarea", "title", "xmp", "iframe", "noembed",
                "noframes", "noscript",
            ]
            .into_iter()
            .find(|n| is(n))
        } else {
            None
        };
        let Some(raw) = raw else { continue };
        // Inline SVG (icons, charts) is markup, not raw text, but none of it is content:
        // cut to its first `</svg>` (a nested one leaves the rest to the parser). A
        // self-closed `<svg/>` has nothing to cut.
        let cut = matches!(raw, "script" | "style" | "svg");
        if raw == "svg" && b[..tag_end].ends_with(b"/>") {
            continue;
        }
        // Nested SVGs all look for the same `</svg>`: found once, not once per level.
        let close = match svg_close {
            Some(c) if raw == "svg" && c >= tag_end => Some(c),
            _ => find_end_tag(b, tag_end, raw.as_bytes()),
        };
        if raw == "svg" {
            svg_close = close;
        }
        let Some(close) = close else {
            if raw == "svg" {
                continue;
            }
            // Never closed: everything after is its text.
            if raw == "script" || raw == "style" {
                let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
                o.push_str(&html[copied..tag_end]);
                copied = b.len();
            }
            break;
        };
        if raw == "svg" && find(&b[..close], tag_end, b"<svg").is_some() {
            // Nested SVG: leave it whole to the parser.
            i = tag_end;
            continue;
        }
        if cut {
            // `<!--` in a script can hide its `</script>` (the double-escaped states):
            // from here on, the page goes through as it is.
            if raw == "script" && find(&b[..close], tag_end, b"<!--").is_some() {
                break;
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

/// Append the attributes of the start tag `name` (from `from` to its end `tag_end`) that
/// [`TEXT_ATTRIBUTES`] keeps, and the tag's close, to `out`; tokenized as the HTML tokenizer
/// does (before/after attribute name, quoted and unquoted values, `/` of self-closing tags).
/// False, with `out` partly written, when the tokenizer would end the tag elsewhere than
/// `tag_end` (unterminated tags and quotes): the tag then stays as it is.
fn prune_attributes(
    html: &str,
    name: &[u8],
    from: usize,
    tag_end: usize,
    out: &mut String,
) -> bool {
    let b = html.as_bytes();
    let is_space = |c: u8| matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
    let anchor = name.eq_ignore_ascii_case(b"a");
    let mut i = from;
    let mut self_closing = false;
    loop {
        // Before attribute name: whitespace, and `/` not followed by `>`.
        while i < b.len() && (is_space(b[i]) || (b[i] == b'/' && b.get(i + 1) != Some(&b'>'))) {
            i += 1;
        }
        match b.get(i) {
            None => return false,
            Some(b'>') => return i + 1 == tag_end && finish_tag(out, self_closing),
            Some(b'/') => {
                self_closing = true;
                i += 1;
                continue;
            }
            Some(_) => {}
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
            match b.get(j) {
                Some(&q @ (b'"' | b'\'')) => {
                    let Some(close) = memchr(q, &b[j + 1..]) else {
                        return false;
                    };
                    value_end = j + 1 + close + 1;
                }
                Some(b'>') | None => value_end = j,
                Some(_) => {
                    while j < b.len() && !is_space(b[j]) && b[j] != b'>' {
                        j += 1;
                    }
                    value_end = j;
                }
            }
            i = value_end;
        }
        let attr = &b[start..name_end];
        if TEXT_ATTRIBUTES
            .iter()
            .any(|k| attr.eq_ignore_ascii_case(k.as_bytes()))
        {
            out.push(' ');
            if anchor && attr.eq_ignore_ascii_case(b"href") {
                // Whether a link has a target is all the text path asks of it.
                out.push_str("href");
            } else {
                out.push_str(&html[start..value_end]);
            }
        }
    }
}

fn finish_tag(out: &mut String, self_closing: bool) -> bool {
    out.push_str(if self_closing { "/>" } else { ">" });
    true
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

/// One past the `>` closing the tag whose name ends at `from`, stepping over quoted
/// attribute values (which may hold `>`); the end of input if there is none.
fn tag_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(off) = memchr::memchr3(b'>', b'"', b'\'', &b[i..]) {
        let at = i + off;
        if b[at] == b'>' {
            return at + 1;
        }
        // A quote opens a value only after `=`; a stray quote in a name does not.
        let before = b[from..at].iter().rposition(|c| !c.is_ascii_whitespace());
        if before.is_some_and(|p| b[from + p] == b'=') {
            match memchr(b[at], &b[at + 1..]) {
                Some(close) => i = at + 1 + close + 1,
                None => return b.len(),
            }
        } else {
            i = at + 1;
        }
    }
    b.len()
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

/// Position of `needle` in `b` at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, needle).map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_script_and_style_contents() {
        let html = "<p>a</p><script type=\"x\">if (a < b) { x = '</p>'; }</script><STYLE>p>a{}</style ><p>b</p>";
        assert_eq!(
            strip_raw_text(html),
            "<p>a</p><script type=\"x\"></script><STYLE></style ><p>b</p>"
        );
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
            strip_raw_text("<svg><svg><g/></svg><g/></svg>"),
            "<svg><svg></svg><g/></svg>"
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

    /// The pruned parse has the same nodes as the unpruned one, and each element the
    /// unpruned one's attributes that [`TEXT_ATTRIBUTES`] keeps (`<a href>` without its URL),
    /// or all of them.
    fn assert_prunes_like_the_tokenizer(html: &str) {
        let full = parse_str(&lean_html(html, false));
        let pruned = parse_str(&lean_html(html, true));
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
        ] {
            assert_prunes_like_the_tokenizer(html);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn prunes_any_tag_soup_like_the_tokenizer(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "<", ">", "/", "=", "\"", "'", " ", "\n", "a", "p", "div", "img", "class",
                    "href", "data-x", "alt", "title", "x", "&amp;", "</", "<a ", "<p ", "<img ",
                    "<!--", "-->", "<script>", "</script>", "<svg>", "</svg>", "<textarea>",
                ]),
                0..40,
            )
        ) {
            assert_prunes_like_the_tokenizer(&parts.concat());
        }
    }
}

//! Named sets of HTML tags, each declared once (after html5ever's `tree_builder/tag_sets.rs`).
//!
//! A set is a function over a local name that compares interned atoms, no strings: these
//! run on every node of every page.

use markup5ever::local_name;

use super::LocalName;

/// `declare_tag_set!(pub is_x = "a" "b");` declares `pub fn is_x(tag: &LocalName) -> bool`;
/// `declare_tag_set!(pub is_y = [is_x] + "c");` declares a superset of `is_x`.
macro_rules! declare_tag_set {
    ($(#[$attr:meta])* $vis:vis $name:ident = [$base:ident] + $($tag:tt)+) => {
        $(#[$attr])*
        $vis fn $name(tag: &LocalName) -> bool {
            $base(tag) || matches!(*tag, $(local_name!($tag))|+)
        }
    };
    ($(#[$attr:meta])* $vis:vis $name:ident = $($tag:tt)+) => {
        $(#[$attr])*
        $vis fn $name(tag: &LocalName) -> bool {
            matches!(*tag, $(local_name!($tag))|+)
        }
    };
}

declare_tag_set!(
    /// Block-level elements: their boundaries end a line of text, a text block, a chunk.
    pub(crate) is_block = "address" "article" "aside" "blockquote" "br" "dd" "details" "dialog" "div"
    "dl" "dt" "fieldset" "figcaption" "figure" "footer" "form" "h1" "h2" "h3" "h4" "h5" "h6"
    "header" "hr" "li" "main" "nav" "ol" "p" "pre" "section" "summary" "table" "td" "th" "tr"
    "ul" "caption" "tbody" "thead" "tfoot"
);

declare_tag_set!(
    /// Elements whose contents a browser does not render as the page's text (code, metadata,
    /// fallbacks, embedded documents, vector graphics). What the text of a template
    /// ([`crate::output::visible_text`]) leaves out.
    ///
    /// Narrower than [`is_invisible`] by history, not by design: the content extractor's list
    /// grew since. Widening this one would change `templex template --format text` on pages
    /// with forms, ruby or formulas annotated with their TeX source.
    pub(crate) is_unrendered = "script" "style" "noscript" "template" "head" "iframe" "object" "svg"
);

declare_tag_set!(
    /// Elements whose text is never part of what a reader reads: [`is_unrendered`], plus
    /// form controls' values, ruby annotations (the reading set over the base text, not part
    /// of it) and a formula's annotations (MathML's `<semantics>` renders its first child;
    /// the TeX source beside it, Wikipedia's `{\displaystyle …}`, is for machines). A
    /// formula's own tokens (`<mi>`, `<mo>`, `<mn>`) are read.
    pub(crate) is_invisible = [is_unrendered] + "textarea" "option" "rt" "rp" "annotation"
    "annotation-xml"
);

declare_tag_set!(
    /// Elements whose text is code, not anything a reader reads: no evidence that two pages
    /// share a node (the vote of TemEx and HybEx).
    pub(crate) is_code = "script" "style" "template"
);

declare_tag_set!(
    /// `li`, `dt`, `dd`: the items of lists.
    pub(crate) is_list_item = "li" "dt" "dd"
);

declare_tag_set!(
    /// Images.
    pub(crate) is_image = "img" "picture"
);

declare_tag_set!(
    /// Images and videos.
    pub(crate) is_media = [is_image] + "video"
);

declare_tag_set!(
    /// Elements that have no end tag.
    pub(crate) is_void = "area" "base" "basefont" "bgsound" "br" "col" "embed" "frame" "hr" "img"
    "input" "keygen" "link" "meta" "param" "source" "track" "wbr"
);

declare_tag_set!(
    /// Elements whose text children are serialized unescaped (scripting enabled, as html5ever
    /// parses).
    pub(crate) is_raw_text = "style" "script" "xmp" "iframe" "noembed" "noframes" "plaintext"
    "noscript"
);

/// The level, 1–6, of a heading (`h1`–`h6`).
pub(crate) fn heading_level(tag: &LocalName) -> Option<u8> {
    let level = match *tag {
        local_name!("h1") => 1,
        local_name!("h2") => 2,
        local_name!("h3") => 3,
        local_name!("h4") => 4,
        local_name!("h5") => 5,
        local_name!("h6") => 6,
        _ => return None,
    };
    Some(level)
}

/// Headings, `h1`–`h6`.
pub(crate) fn is_heading(tag: &LocalName) -> bool {
    heading_level(tag).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_compare_names() {
        let t = |s: &str| LocalName::from(s);
        assert!(is_block(&t("div")) && is_block(&t("tfoot")) && !is_block(&t("span")));
        assert!(is_invisible(&t("script")) && is_invisible(&t("rt")));
        assert!(is_unrendered(&t("svg")) && !is_unrendered(&t("textarea")));
        assert!(is_media(&t("img")) && is_media(&t("video")) && !is_image(&t("video")));
        assert!(is_void(&t("keygen")) && !is_void(&t("p")));
        assert!(is_raw_text(&t("plaintext")) && !is_raw_text(&t("textarea")));
        assert_eq!(heading_level(&t("h4")), Some(4));
        assert!(is_heading(&t("h6")) && !is_heading(&t("h7")) && !is_heading(&t("header")));
        // Unknown names (inline and dynamic atoms) are in no set.
        assert!(!is_block(&t("my-custom-element")) && !is_invisible(&t("x")));
    }
}

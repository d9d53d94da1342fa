//! Chunk text: whitespace normalization, and the words of images (ALT text, file names).

use markup5ever::local_name;
use percent_encoding::percent_decode_str;

use crate::dom::Element;

/// Collapse whitespace (Unicode's, so NBSP and the other fixed-width spaces too) to single
/// spaces, trim, and drop zero-width characters and soft hyphens, which are invisible but
/// differ between otherwise identical texts. Entities are already decoded by the parser.
pub(crate) fn normalize_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    normalize_into(s, &mut out);
    out
}

/// [`normalize_text`] into `out` (cleared first): one buffer for all the chunks of a page.
pub(crate) fn normalize_into(s: &str, out: &mut String) {
    out.clear();
    let mut pending_space = false;
    for c in s.chars() {
        if is_invisible_char(c) {
            continue;
        }
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
    }
}

/// Zero-width characters and soft hyphens: invisible, and dropped by [`normalize_text`]
/// (chunk keys also drop the zero-width space and joiners, which rendered text keeps).
fn is_invisible_char(c: char) -> bool {
    crate::dom::is_invisible_format(c) || matches!(c, '\u{200b}' | '\u{200c}' | '\u{200d}')
}

/// Whether [`normalize_text`] leaves anything of `s` (without building the string).
pub(crate) fn has_visible_text(s: &str) -> bool {
    s.chars()
        .any(|c| !c.is_whitespace() && !is_invisible_char(c))
}

/// Words that make an image name or ALT text say nothing: layout graphics, generic nouns,
/// camera and size labels. Kept short and generic; anything else with a real word is
/// informative.
pub(crate) const UNINFORMATIVE: &[&str] = &[
    "img",
    "image",
    "images",
    "imgs",
    "pic",
    "pics",
    "picture",
    "photo",
    "graphic",
    "graphics",
    "gfx",
    "spacer",
    "space",
    "spc",
    "shim",
    "blank",
    "empty",
    "clear",
    "clearpixel",
    "transparent",
    "trans",
    "pixel",
    "pix",
    "dot",
    "bullet",
    "line",
    "bar",
    "nav",
    "icon",
    "bkg",
    "background",
    "thumb",
    "thumbnail",
    "small",
    "medium",
    "large",
    "big",
    "default",
    "untitled",
    "unnamed",
    "copy",
    "dsc",
    "dscn",
    "dcim",
    "screenshot",
    "scaled",
    "cropped",
    "resized",
    "min",
    "file",
    "jpg",
    "jpeg",
    "gif",
    "png",
    "webp",
    "svg",
    "bmp",
];

const IMAGE_EXTENSIONS: &[&str] = &[
    "gif", "jpg", "jpeg", "png", "webp", "svg", "bmp", "ico", "avif", "tif", "tiff",
];

/// The words of an image file name, when they are informative: `home-button.gif` → "home
/// button", `aboutUs_2.png` → "about us"; `None` for `img9.gif`, `spacer.gif`,
/// `IMG_20190312_1234.jpg`, `a3f9c0e1b2.png`, data URIs.
///
/// The rule: take the last path segment (query and fragment dropped, percent-decoded), drop
/// its extension, split it into words at punctuation, lower-to-upper case changes and
/// letter/digit changes, and keep the words that are at least 2 letters long, hold a vowel
/// (`btn`, `hdr`, `nv` are abbreviations, not words) and are not [layout or camera
/// words](UNINFORMATIVE); the name is informative when one of them has 3 letters or more. Tokens that mix letters and digits over 8 characters or more are
/// identifiers (hashes, upload ids) and dropped whole. Scripts without case or vowels
/// (CJK, …) are kept as they are.
pub(crate) fn image_name_words(src: &str) -> Option<String> {
    let src = src.trim();
    // (`get`: byte 5 may fall inside a character of a non-ASCII name.)
    if src.len() > 5
        && src
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("data:"))
    {
        return None;
    }
    let path = src.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit(['/', '\\']).next().unwrap_or("");
    let decoded = percent_decode_str(last).decode_utf8_lossy();
    let stem = match decoded.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && ext.len() <= 5
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            stem
        }
        _ => &decoded,
    };
    let mut words: Vec<String> = Vec::new();
    for token in stem.split(|c: char| !c.is_alphanumeric()) {
        let has_digit = token.chars().any(|c| c.is_ascii_digit());
        let has_alpha = token.chars().any(char::is_alphabetic);
        if has_digit && has_alpha && token.chars().count() >= 8 {
            continue;
        }
        for w in split_word(token) {
            if informative_word(&w) {
                words.push(w);
            }
        }
    }
    // Two-letter words ("about us", "log in") only count beside a longer one.
    let has_long = words.iter().any(|w| !w.is_ascii() || w.len() >= 3);
    has_long.then(|| words.join(" "))
}

/// Split a token at lower-to-upper case changes and letter/digit changes, lower-cased.
fn split_word(token: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in token.chars() {
        if let Some(p) = prev {
            let case_change = p.is_lowercase() && c.is_uppercase();
            let digit_change = p.is_ascii_digit() != c.is_ascii_digit();
            if (case_change || digit_change) && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn informative_word(w: &str) -> bool {
    if w.chars().all(|c| c.is_ascii_digit()) || UNINFORMATIVE.contains(&w) {
        return false;
    }
    if !w.is_ascii() {
        // Other scripts: any letter counts (a CJK character is a word).
        return w.chars().any(char::is_alphabetic);
    }
    w.len() >= 2
        && w.bytes().all(|b| b.is_ascii_alphabetic())
        && w.bytes()
            .any(|b| b"aeiouy".contains(&b.to_ascii_lowercase()))
}

/// ALT text, when informative: normalized, and at least one real word that is not a layout
/// word ("image", "spacer", "*", "" are not). ALT text that is a file name
/// (`IMG_1234.jpg`, `home-button.gif`) goes through [`image_name_words`].
pub(crate) fn informative_alt(alt: &str) -> Option<String> {
    let alt = normalize_text(alt);
    if alt.is_empty() {
        return None;
    }
    if !alt.contains(' ') {
        if let Some((_, ext)) = alt.rsplit_once('.') {
            if IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
                return image_name_words(&alt);
            }
        }
    }
    let lower = alt.to_lowercase();
    let real_word = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .any(|w| {
            !UNINFORMATIVE.contains(&w)
                && (w.chars().count() >= 2 || !w.is_ascii())
                && w.chars().any(char::is_alphabetic)
        });
    real_word.then_some(alt)
}

/// The text an image element contributes to its chunk: its informative ALT text, then the
/// informative words of its file name that the ALT text does not already say. `img`,
/// `input type=image` (ALT and `src`) and image-map `area`s (ALT only) count; lazy-loaded
/// images name their file in `data-src` when `src` is a placeholder.
pub(crate) fn image_text(e: &Element) -> Option<String> {
    let is_img = e.is(&local_name!("img"))
        || (e.is(&local_name!("input"))
            && e.attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("image")));
    let is_area = e.is(&local_name!("area"));
    if !is_img && !is_area {
        return None;
    }
    let alt = e.attr("alt").and_then(informative_alt);
    let name = if is_img {
        let src = e
            .attr("src")
            .filter(|s| !s.trim().is_empty() && !s.trim_start().starts_with("data:"))
            .or_else(|| e.attr("data-src"))
            .or_else(|| e.attr("data-lazy-src"));
        src.and_then(image_name_words)
    } else {
        None
    };
    match (alt, name) {
        (Some(a), Some(n)) => {
            let lower = a.to_lowercase();
            let alt_words: Vec<&str> = lower
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let new: Vec<&str> = n.split(' ').filter(|w| !alt_words.contains(w)).collect();
            if new.is_empty() {
                Some(a)
            } else {
                Some(format!("{a} {}", new.join(" ")))
            }
        }
        (a, n) => a.or(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization() {
        assert_eq!(normalize_text("  a\u{a0}\u{a0}b\n\tc\u{200b}d  "), "a b cd");
        assert_eq!(normalize_text("\u{a0} \u{feff}"), "");
        assert_eq!(normalize_text("so\u{ad}ft"), "soft");
        for t in ["  a ", "\u{a0} \u{feff}", "", "\u{200b}x", " \u{ad} "] {
            assert_eq!(has_visible_text(t), !normalize_text(t).is_empty(), "{t:?}");
        }
    }

    #[test]
    fn non_ascii_image_names_are_read_not_sliced() {
        // Found by fuzzing: byte 5 falls inside the 'é'.
        assert_eq!(
            image_name_words("abcd\u{e9}.gif").as_deref(),
            Some("abcd\u{e9}")
        );
        assert_eq!(
            informative_alt("\u{e9}\u{e9}\u{e9}.png"),
            image_name_words("\u{e9}\u{e9}\u{e9}.png")
        );
        assert_eq!(image_name_words("DATA:image/png;base64,xx"), None);
    }

    #[test]
    fn image_names() {
        assert_eq!(
            image_name_words("/img/home-button.gif").as_deref(),
            Some("home button")
        );
        assert_eq!(
            image_name_words("aboutUs_2.png?v=3").as_deref(),
            Some("about us")
        );
        assert_eq!(
            image_name_words("nav/Contact%20Page.JPG").as_deref(),
            Some("contact page")
        );
        for junk in [
            "img9.gif",
            "spacer.gif",
            "/i/graphic.png",
            "pixel.gif",
            "blank.gif",
            "dot_clear.gif",
            "transparent.png",
            "1234.jpg",
            "IMG_20190312_123456.jpg",
            "DSC01234.JPG",
            "a3f9c0e1b2d4.png",
            "5f2b8c9a7e.jpg",
            "btn.gif",
            "x.png",
            "data:image/gif;base64,R0lGOD",
            "",
            "/",
        ] {
            assert_eq!(image_name_words(junk), None, "{junk}");
        }
    }

    #[test]
    fn alt_texts() {
        assert_eq!(
            informative_alt(" Home\u{a0}page ").as_deref(),
            Some("Home page")
        );
        assert_eq!(informative_alt("Über uns").as_deref(), Some("Über uns"));
        assert_eq!(informative_alt("首页").as_deref(), Some("首页"));
        for junk in ["", " ", "*", "image", "Spacer", "-", "IMG_1234.jpg", "1"] {
            assert_eq!(informative_alt(junk), None, "{junk:?}");
        }
        assert_eq!(
            informative_alt("home-button.gif").as_deref(),
            Some("home button")
        );
    }

    // Fuzz finding 1 (`tests/it/fuzz_regressions.rs`): a `data:` URI test on `src[..5]`
    // panicked when byte 5 fell inside a multi-byte character.

    #[test]
    fn finding_1_image_name_words_non_ascii_src() {
        // "abcd" then 'é' at bytes 4..6: byte 5 is inside it.
        let _ = image_name_words("abcd\u{e9}.gif");
    }

    #[test]
    fn finding_1_informative_alt_file_name() {
        // An ALT text that looks like a file name goes through image_name_words too.
        let _ = informative_alt("\u{e9}\u{e9}\u{e9}.png");
    }
}

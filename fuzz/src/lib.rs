//! Helpers shared by the fuzz targets: how a target reads its control byte and splits its
//! input into pages. `crates/templex/tests/fuzz_regressions.rs` mirrors them, so a
//! minimized input replays there exactly as here.

use std::path::PathBuf;

/// Transport charsets a target may pass along with the bytes (the HTTP `Content-Type`
/// charset): none, the common ones, a multi-byte and a UTF-16 one, and junk.
pub const CHARSETS: [Option<&str>; 8] = [
    None,
    Some("utf-8"),
    Some("windows-1252"),
    Some("iso-8859-1"),
    Some("shift_jis"),
    Some("utf-16le"),
    Some("gb18030"),
    Some("x-no-such-charset"),
];

/// The transport charset a control byte selects.
pub fn charset(control: u8) -> Option<&'static str> {
    CHARSETS[(control & 7) as usize]
}

/// Splits the first byte off as the control byte (0 for empty input).
pub fn control(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((c, rest)) => (*c, rest),
        None => (0, data),
    }
}

/// Separator between the pages of one input (`template`, `batch`).
pub const PAGE_SEPARATOR: &[u8] = b"\0PAGE\0";

/// The pages of an input: the parts between separators, at most `max`; when there are
/// fewer than `min`, variations of the first page fill up (the page with its k-th quarter
/// cut out), so that a one-page input still makes a small site.
pub fn split_pages(data: &[u8], min: usize, max: usize) -> Vec<Vec<u8>> {
    let mut pages: Vec<Vec<u8>> = Vec::new();
    let mut rest = data;
    while pages.len() + 1 < max {
        match find(rest, PAGE_SEPARATOR) {
            Some(i) => {
                pages.push(rest[..i].to_vec());
                rest = &rest[i + PAGE_SEPARATOR.len()..];
            }
            None => break,
        }
    }
    pages.push(rest.to_vec());
    let key = pages[0].clone();
    let mut k = 0;
    while pages.len() < min {
        let q = key.len() / 4;
        let (a, b) = (k * q, (k + 1) * q);
        let mut v = key[..a].to_vec();
        v.extend_from_slice(&key[b..]);
        pages.push(v);
        k += 1;
    }
    pages
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A scratch file of this process (in `/dev/shm` when there is one), for the readers that
/// take a path.
pub fn scratch_path(name: &str) -> PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("templex-fuzz-{}-{name}", std::process::id()))
}

//! Telling bytes that are not a web page (images, PDFs, archives, executables, binary junk)
//! from HTML before parsing them: parsing would "succeed" and give mojibake as content.

/// File signatures of common non-HTML formats crawls and clients hand over by mistake (only
/// signatures no text page plausibly starts with: the control-character test catches the rest).
const SIGNATURES: &[(&[u8], &str)] = &[
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"RIFF", "a RIFF file (WebP image, WAV or AVI)"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"\x00\x00\x01\x00", "an icon"),
    (b"wOFF", "a web font"),
    (b"wOF2", "a web font"),
    (b"OggS", "an Ogg media file"),
    (b"fLaC", "a FLAC audio file"),
    (b"\x1aE\xdf\xa3", "a Matroska/WebM video"),
    (b"SQLite format 3\x00", "an SQLite database"),
];

/// Bytes examined by the text test: enough to judge, bounded for huge inputs.
const SAMPLE: usize = 64 * 1024;

/// Why `bytes` are not HTML, or `None` when they may be.
///
/// A known binary signature at the start decides at once (an ISO-BMFF `ftyp` box too). Else
/// the first 64 KiB are judged as text: NUL bytes or C0 control characters (other than tab,
/// newline, form feed, carriage return, escape) beyond 1 % of the sample mean binary data —
/// UTF-16 pages are NUL-dense too, so a UTF-16 byte order mark exempts them.
pub fn not_html(bytes: &[u8]) -> Option<&'static str> {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(&[][..], |i| &bytes[i..]);
    if start.first() == Some(&b'<') {
        // Markup first: judged by the text test below only.
    } else if let Some((_, what)) = SIGNATURES.iter().find(|(sig, _)| bytes.starts_with(sig)) {
        return Some(what);
    } else if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        return Some("an MP4/HEIF/AVIF media file");
    }
    if bytes.starts_with(b"\xff\xfe") || bytes.starts_with(b"\xfe\xff") {
        return None;
    }
    let sample = &bytes[..bytes.len().min(SAMPLE)];
    if sample.is_empty() {
        return None;
    }
    // Counted in runs of 255 bytes into a byte counter, branch-free, so that the compiler
    // vectorizes it: every page of a batch passes here.
    let binary: usize = sample
        .chunks(255)
        .map(|run| {
            let n = run.iter().fold(0u8, |n, &b| {
                let allowed =
                    (b == b'\t') | (b == b'\n') | (b == b'\x0c') | (b == b'\r') | (b == 0x1b);
                n + u8::from(b < 0x20 && !allowed)
            });
            usize::from(n)
        })
        .sum();
    if binary * 100 > sample.len() {
        return Some("binary data (control characters)");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_pass_and_binaries_do_not() {
        assert_eq!(not_html(b"<!doctype html><p>hi"), None);
        assert_eq!(not_html(b"  \n<html>"), None);
        assert_eq!(not_html(b"plain text is a page too"), None);
        assert_eq!(not_html(b""), None);
        assert_eq!(not_html("<p>é ü 中文</p>".as_bytes()), None);
        assert_eq!(not_html(b"\xff\xfe<\x00p\x00>\x00"), None);
        assert_eq!(not_html(b"%PDF-1.7\n..."), Some("a PDF document"));
        assert_eq!(not_html(b"\x89PNG\r\n\x1a\n\0\0"), Some("a PNG image"));
        assert_eq!(not_html(b"\x1f\x8b\x08\0"), Some("gzip-compressed data"));
        assert!(not_html(b"\0\0\0\x18ftypavif").is_some());
        // Pseudo-random bytes: many control characters.
        let mut x: u32 = 12345;
        let junk: Vec<u8> = (0..100_000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        assert!(not_html(&junk).is_some());
        // Control characters are counted across the counting runs: one in 255 bytes is
        // under the threshold, one in 50 over it.
        let spaced = |every: usize| {
            let mut page = b"<p>".to_vec();
            page.extend((1..=3000).map(|i| if i % every == 0 { 1u8 } else { b'a' }));
            page
        };
        assert_eq!(not_html(&spaced(255)), None);
        assert!(not_html(&spaced(50)).is_some());
        // A page that starts with markup but is mostly NUL bytes is still refused.
        let mut nul = b"<html>".to_vec();
        nul.extend(std::iter::repeat_n(0u8, 1000));
        assert!(not_html(&nul).is_some());
    }
}

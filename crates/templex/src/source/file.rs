//! Reading one page from a file: plain or gzipped, never more than a page may be.

use std::io::{self, Read};
use std::path::Path;

/// Largest page read from a file (after gunzipping); bigger ones are errors, not pages.
pub(crate) const MAX_PAGE_BYTES: u64 = 64 * 1024 * 1024;

/// Why a page file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PageFileError {
    /// The file system failed (missing file, no permission…), or the gzip stream is broken.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The path is a directory or another non-file.
    #[error("not a file")]
    NotAFile,
    /// The page is larger than the limit (after gunzipping, `len` is where reading stopped).
    #[error("{len} bytes, over the {limit}-byte page limit")]
    TooLarge {
        /// Bytes seen.
        len: u64,
        /// The limit.
        limit: u64,
    },
}

/// Read a page file, gunzipping it when it starts with the gzip magic bytes (`.html.gz`
/// gold sets, compressed mirrors), within `max_bytes` before and after decompression.
pub fn read_page_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, PageFileError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(PageFileError::NotAFile);
    }
    let too_large = |len: u64| PageFileError::TooLarge {
        len,
        limit: max_bytes,
    };
    if meta.len() > max_bytes {
        return Err(too_large(meta.len()));
    }
    let bytes = std::fs::read(path)?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    // The gzip trailer holds the (last member's) size: one allocation instead of a doubling
    // series. Only a hint, capped so that a forged trailer cannot reserve much.
    let hint = bytes
        .len()
        .checked_sub(4)
        .and_then(|i| bytes.get(i..))
        .and_then(|t| <[u8; 4]>::try_from(t).ok())
        .map_or(0, |t| u32::from_le_bytes(t) as u64)
        .min(max_bytes)
        .min((bytes.len() as u64).saturating_mul(64));
    let mut out = Vec::with_capacity(hint as usize + 1);
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .take(max_bytes + 1)
        .read_to_end(&mut out)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot gunzip: {e}")))?;
    if out.len() as u64 > max_bytes {
        return Err(too_large(out.len() as u64));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn reads_plain_and_gzipped_within_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.html");
        std::fs::write(&plain, b"<p>hi</p>").unwrap();
        assert_eq!(read_page_file(&plain, 100).unwrap(), b"<p>hi</p>");
        assert!(read_page_file(&plain, 4).is_err());

        let gz = dir.path().join("a.html.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&[b'x'; 1000]).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        assert_eq!(read_page_file(&gz, 1000).unwrap().len(), 1000);
        // A small file that inflates past the cap is refused, not cut.
        let err = read_page_file(&gz, 999).unwrap_err();
        assert!(err.to_string().contains("page limit"), "{err}");

        assert!(read_page_file(dir.path(), 100).is_err());
        assert!(read_page_file(&dir.path().join("missing"), 100).is_err());
    }
}

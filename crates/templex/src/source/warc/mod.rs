//! WARC files (ISO 28500, WARC/1.0 and 1.1; `.warc` or `.warc.gz`) as a page source, a
//! streaming reader for batch work, and a small WARC writer.
//!
//! # Why a hand-written reader
//!
//! The `warc` crate (0.4) was evaluated and not used: after a malformed or mis-sized record
//! its iterators return an error and leave the stream at an arbitrary position (no resync),
//! it reports no offsets (so no random access), it decodes `.warc.gz` as one stream (so a
//! corrupt member ends the file), its `from_path` even creates missing files, and it pulls in
//! chrono, nom 7 and uuid 0.8. A WARC record is a version line, `Name: value` header lines,
//! a blank line, `Content-Length` bytes of block and `\r\n\r\n`; a reader for that, which
//! skips damaged records and resynchronises on the next `WARC/1.` line, is small.
//!
//! # Index and memory
//!
//! [`WarcSource::open`] reads the file once and keeps, per page, only where its record is:
//! the block's byte range for plain files, the offset of the gzip member the record starts
//! in for `.warc.gz` (the normal layout compresses each record as its own member, so a load
//! seeks there and inflates one record). When a record does not start a member (a file
//! compressed as one big stream), seeking is impossible and that page's decoded body is kept
//! in memory instead.
//!
//! Damaged input never aborts: truncated records, garbage between records, wrong
//! `Content-Length`s and corrupt gzip members are skipped with a `tracing` warning, and
//! reading continues at the next gzip member / next `WARC/1.` line.
//!
//! # Parts
//!
//! `index` ([`WarcSource`]) and `stream` ([`read_warc_pages`]) read through `records` (a
//! decompressed stream split into records), which reads `gzip` (plain bytes or gzip members);
//! `payload` says what a record means and decodes its HTTP body; `writer` ([`WarcWriter`],
//! mirrors as WARCs) stands apart.

mod gzip;
mod index;
mod payload;
mod records;
mod stream;
mod writer;

use std::io;

pub use index::WarcSource;

/// `Read::read` for a reader whose own buffer is the source of truth (`BufRead`): the WARC
/// readers stack several, and each reads through its `fill_buf`.
fn read_through_buffer<R: io::BufRead + ?Sized>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let data = r.fill_buf()?;
    let n = data.len().min(buf.len());
    buf[..n].copy_from_slice(&data[..n]);
    r.consume(n);
    Ok(n)
}
pub use stream::{WarcPages, read_warc_pages};
pub use writer::{WarcWriter, append_mirror, write_mirror_to_warc};

// Bounds on what damaged or hostile input can make the reader hold, in one place.

/// Longest header line read as one line; longer "lines" are garbage.
const MAX_LINE: usize = 64 * 1024;
/// Largest WARC header block; beyond this the record is considered corrupt.
const MAX_HEADER_BYTES: usize = 1024 * 1024;
/// Blocks up to this size are read whole (transiently); larger records are not pages.
const MAX_BLOCK: u64 = 64 * 1024 * 1024;
/// How much of an oversized block is read to classify it.
const BLOCK_PREFIX: u64 = 64 * 1024;
/// Cap on a body after content decoding, against decompression bombs.
const MAX_DECODED: u64 = 256 * 1024 * 1024;
/// Redirect hops followed inside the WARC.
const MAX_REDIRECTS: usize = 10;
/// Decompressed-output buffer of the gzip member reader.
const GZ_BUF: usize = 64 * 1024;

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn invalid_data(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

//! The streaming reader: every page of a WARC in file order, one record in memory.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::MAX_BLOCK;
use super::gzip::open_stream;
use super::payload::{Kind, classify, page_body};
use super::records::RecordReader;
use crate::source::{LoadError, Page};

/// Read every HTML page of a WARC in file order without indexing or holding more than one
/// record in memory, for crawl-scale batch processing.
///
/// Yields what [`WarcSource`](super::WarcSource) would index as pages (2xx HTML responses,
/// HTML resources), with decoded bodies; redirects are not followed and duplicate URIs are
/// not removed (that would need memory proportional to the file). Damaged records are
/// skipped with a warning; an `Err` item is a real I/O error, after which the iterator ends.
pub fn read_warc_pages(path: impl AsRef<Path>) -> Result<WarcPages, LoadError> {
    let path = path.as_ref();
    let label: Arc<str> = path.display().to_string().into();
    let (stream, _) = open_stream(path, 0, label.clone()).map_err(|source| LoadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Ok(WarcPages {
        reader: RecordReader::new(stream, label),
        path: path.display().to_string(),
        done: false,
        last_offset: None,
    })
}

/// Iterator returned by [`read_warc_pages`].
pub struct WarcPages {
    reader: RecordReader,
    path: String,
    done: bool,
    last_offset: Option<u64>,
}

impl fmt::Debug for WarcPages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarcPages")
            .field("path", &self.path)
            .field("offset", &self.reader.pos)
            .finish()
    }
}

impl WarcPages {
    /// Damaged spots skipped so far (each logged as a warning).
    pub fn problems(&self) -> usize {
        self.reader.problems()
    }

    /// Where the page last yielded starts in the file: the offset of its gzip member when
    /// the record starts one (a `.warc.gz` of one member per record, as crawlers write and
    /// Common Crawl's index names them), else of its WARC header in the decompressed
    /// stream. With the file's path, it names the record for good.
    pub fn last_offset(&self) -> Option<u64> {
        self.last_offset
    }
}

impl Iterator for WarcPages {
    type Item = Result<Page, LoadError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let (head, block) = match self.reader.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(source) => {
                    self.done = true;
                    return Some(Err(LoadError::Io {
                        path: self.path.clone(),
                        source,
                    }));
                }
            };
            let Some(rec) = classify(&head, &block) else {
                continue;
            };
            let Kind::Page {
                media,
                charset,
                http,
            } = rec.kind
            else {
                continue;
            };
            if !block.complete {
                self.reader.problem(format_args!(
                    "record at offset {} for {} is larger than {MAX_BLOCK} bytes; skipped",
                    head.offset, rec.url
                ));
                continue;
            }
            let body = page_body(&block.data, http, &rec.url);
            self.last_offset = Some(head.member.unwrap_or(head.offset));
            return Some(Ok(Page {
                final_url: rec.url.clone(),
                url: rec.url,
                body,
                charset,
                content_type: (!media.is_empty()).then_some(media),
            }));
        }
        self.done = true;
        None
    }
}

//! The batch output: one JSON line per input record, in record order, written so that an
//! interrupted run can resume exactly where it stopped.
//!
//! Every line carries the record's `seq`. On resume the file is scanned: complete lines
//! (newline-terminated, valid JSON, consecutive `seq` from 0) are kept, anything after the
//! last one (a half-written line) is cut off, and the run continues with the next `seq`.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One output line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutRecord {
    /// Position of the record in the run (0-based over all inputs).
    pub seq: u64,
    /// Where the record came from (file, or `WARC#n`).
    pub input: String,
    /// The page URL, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub url: Option<String>,
    /// The site (registrable domain, or `file:DIR` for loose files without a URL).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub site: Option<String>,
    /// The template cluster within the site (`site#n`), when a learned template applied.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cluster: Option<String>,
    /// How the content was found: a learned template's method (`tablechunk`), or
    /// `maincontent` for pages of no learned template.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub method: Option<crate::method::Method>,
    /// The page title ([`crate::Metadata::title`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub title: Option<String>,
    /// The author ([`crate::Metadata::author`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub author: Option<String>,
    /// The publication date, `YYYY-MM-DD` ([`crate::Metadata::date`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub date: Option<String>,
    /// The declared language ([`crate::Metadata::language`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub language: Option<String>,
    /// The page's main content as text: what a reader came for (the page-level main
    /// content, refined by the cluster's template and content evidence when one applied).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub text: Option<String>,
    /// The content as Markdown, when the run renders it ([`BatchConfig::markdown`]).
    ///
    /// [`BatchConfig::markdown`]: super::BatchConfig::markdown
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub markdown: Option<String>,
    /// The page minus its template, as text: everything the site does not repeat (the main
    /// content, comments, related lists, teasers), when the run asks for it
    /// ([`BatchConfig::rest`](super::BatchConfig::rest)) and a template applied.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rest: Option<String>,
    /// Share of the page's visible words that the template holds (0 for page-level).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub template_share: Option<f64>,
    /// Fingerprints of `text` for near-duplicate detection
    /// ([`BatchConfig::fingerprint`](super::BatchConfig::fingerprint)).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fingerprint: Option<Box<crate::dedup::Fingerprint>>,
    /// Why the record has no content.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// For a page the library refused, the error's code ([`crate::PageError::code`]:
    /// `not_html`, `too_large`, `too_many_nodes`, `timed_out`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_code: Option<String>,
}

/// Where a batch run's output records go, in record order: a file
/// ([`OutputFile`]), a `Vec`, a channel to another thread. Sinks are written from the
/// run's worker threads, hence `Send`.
pub trait RecordSink: Send {
    /// Records an interrupted run already wrote here: the run reads and learns from them
    /// again without writing them, and goes on with the next. 0 for a fresh sink.
    fn resume_from(&self) -> u64 {
        0
    }

    /// Take the next record, in order.
    fn write(&mut self, record: OutRecord) -> std::io::Result<()>;

    /// The records taken so far are final (the templates they used are stored): make them
    /// durable.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl RecordSink for Vec<OutRecord> {
    fn write(&mut self, record: OutRecord) -> std::io::Result<()> {
        self.push(record);
        Ok(())
    }
}

impl RecordSink for OutputFile {
    fn resume_from(&self) -> u64 {
        self.next_seq()
    }

    fn write(&mut self, record: OutRecord) -> std::io::Result<()> {
        OutputFile::write(self, &record)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        OutputFile::flush(self)
    }
}

/// The output file, opened for appending after the last complete line.
pub struct OutputFile {
    w: BufWriter<File>,
    next_seq: u64,
}

impl std::fmt::Debug for OutputFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputFile")
            .field("next_seq", &self.next_seq)
            .finish()
    }
}

impl OutputFile {
    /// Create (truncate) the output.
    pub fn create(path: &Path) -> std::io::Result<OutputFile> {
        Ok(OutputFile {
            w: BufWriter::new(File::create(path)?),
            next_seq: 0,
        })
    }

    /// Open an existing output to resume it (created if missing): keeps the complete lines
    /// with consecutive `seq`s from 0, cuts off the rest.
    pub fn resume(path: &Path) -> std::io::Result<OutputFile> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let mut keep = 0u64;
        let mut next_seq = 0u64;
        {
            let mut r = BufReader::new(&mut file);
            let mut line = Vec::new();
            loop {
                line.clear();
                let n = r.read_until(b'\n', &mut line)?;
                if n == 0 || line.last() != Some(&b'\n') {
                    break;
                }
                match serde_json::from_slice::<OutRecord>(&line) {
                    Ok(rec) if rec.seq == next_seq => {
                        next_seq += 1;
                        keep += n as u64;
                    }
                    _ => break,
                }
            }
        }
        file.set_len(keep)?;
        file.seek(SeekFrom::Start(keep))?;
        Ok(OutputFile {
            w: BufWriter::new(file),
            next_seq,
        })
    }

    /// The `seq` of the next record to write (the number of records already written).
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Append a record; it must be the next in order.
    pub fn write(&mut self, rec: &OutRecord) -> std::io::Result<()> {
        if rec.seq != self.next_seq {
            return Err(std::io::Error::other(format!(
                "record {} written out of order (expected {})",
                rec.seq, self.next_seq
            )));
        }
        serde_json::to_writer(&mut self.w, rec)?;
        self.w.write_all(b"\n")?;
        self.next_seq += 1;
        Ok(())
    }

    /// Flush to the OS, so that a crash loses at most the records after this point.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: u64) -> OutRecord {
        OutRecord {
            seq,
            input: format!("f{seq}"),
            url: None,
            site: None,
            cluster: None,
            method: Some(crate::Method::MainContent),
            title: None,
            author: None,
            date: None,
            language: None,
            text: Some("t".into()),
            markdown: None,
            rest: None,
            template_share: Some(0.0),
            fingerprint: None,
            error: None,
            error_code: None,
        }
    }

    #[test]
    fn resume_cuts_partial_lines_and_continues() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.jsonl");
        let mut o = OutputFile::create(&path).unwrap();
        for i in 0..3 {
            o.write(&rec(i)).unwrap();
        }
        assert!(o.write(&rec(7)).is_err());
        o.flush().unwrap();
        drop(o);
        // A half-written fourth line.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"seq\":3,\"inp");
        std::fs::write(&path, &text).unwrap();
        let mut o = OutputFile::resume(&path).unwrap();
        assert_eq!(o.next_seq(), 3);
        o.write(&rec(3)).unwrap();
        o.flush().unwrap();
        let lines: Vec<OutRecord> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines, (0..4).map(rec).collect::<Vec<_>>());
        // Missing file: starts at 0. Garbage: starts at 0, garbage cut.
        let fresh = dir.path().join("new.jsonl");
        assert_eq!(OutputFile::resume(&fresh).unwrap().next_seq(), 0);
        std::fs::write(&fresh, "garbage\n").unwrap();
        assert_eq!(OutputFile::resume(&fresh).unwrap().next_seq(), 0);
        assert_eq!(std::fs::metadata(&fresh).unwrap().len(), 0);
    }
}

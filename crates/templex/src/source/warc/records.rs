//! WARC records: splitting a decompressed stream into record heads and blocks, skipping
//! damage and resynchronising on the next version line.

use std::fmt;
use std::io::{self, BufRead, Read};
use std::sync::Arc;

use super::gzip::Stream;
use super::{BLOCK_PREFIX, MAX_BLOCK, MAX_HEADER_BYTES, MAX_LINE, find};

pub(super) struct RecordHead {
    /// Decompressed offset of the version line.
    pub(super) offset: u64,
    /// Compressed offset of the gzip member the record starts, when it starts one.
    pub(super) member: Option<u64>,
    fields: Vec<(String, String)>,
    pub(super) content_length: u64,
}

impl RecordHead {
    pub(super) fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub(super) struct Block {
    /// Decompressed offset of the block.
    pub(super) offset: u64,
    /// The block, or its first [`BLOCK_PREFIX`] bytes when larger than [`MAX_BLOCK`].
    pub(super) data: Vec<u8>,
    /// Whether `data` is the whole block.
    pub(super) complete: bool,
}

enum BlockOutcome {
    Read(Block),
    /// The record was damaged and dropped; reading goes on.
    Dropped,
    /// The file ends inside the block.
    Eof,
}

/// Splits a decompressed WARC stream into records, skipping damage. Bytes can be pushed back
/// so that a block found to be mis-sized is searched for the next record.
pub(super) struct RecordReader {
    inner: Stream,
    /// Decompressed offset of the next byte.
    pub(super) pos: u64,
    pushback: Vec<u8>,
    pb: usize,
    resyncing: bool,
    label: Arc<str>,
    problems: usize,
}

/// Errors that mean "damaged data" rather than "the disk failed".
fn is_corrupt(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::UnexpectedEof
    )
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b.is_ascii_whitespace())
}

fn is_version_line(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    t.len() <= 16
        && t.strip_prefix(b"WARC/")
            .is_some_and(|v| !v.is_empty() && v.iter().all(|b| b.is_ascii_digit() || *b == b'.'))
}

impl RecordReader {
    pub(super) fn new(inner: Stream, label: Arc<str>) -> Self {
        RecordReader {
            inner,
            pos: 0,
            pushback: Vec::new(),
            pb: 0,
            resyncing: false,
            label,
            problems: 0,
        }
    }

    pub(super) fn problems(&self) -> usize {
        self.problems + self.inner.problems()
    }

    pub(super) fn problem(&mut self, msg: fmt::Arguments<'_>) {
        tracing::warn!(file = %self.label, "{msg}");
        self.problems += 1;
    }

    fn unread(&mut self, bytes: &[u8]) {
        let mut v = bytes.to_vec();
        v.extend_from_slice(&self.pushback[self.pb..]);
        self.pushback = v;
        self.pb = 0;
        self.pos -= bytes.len() as u64;
    }

    /// One line through `\n`, at most `cap` bytes. `Ok(false)` at end of input.
    fn read_line(&mut self, line: &mut Vec<u8>, cap: usize) -> io::Result<bool> {
        line.clear();
        loop {
            let data = self.fill_buf()?;
            if data.is_empty() {
                return Ok(!line.is_empty());
            }
            let room = cap - line.len();
            let (n, done) = match data.iter().take(room).position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => {
                    let n = data.len().min(room);
                    (n, n == room)
                }
            };
            line.extend_from_slice(&data[..n]);
            self.consume(n);
            if done {
                return Ok(true);
            }
        }
    }

    /// The next intact record with its block. `Ok(None)` at the end of the input; `Err`
    /// only for I/O failures (damage is skipped).
    pub(super) fn next_record(&mut self) -> io::Result<Option<(RecordHead, Block)>> {
        loop {
            let Some(head) = self.next_head()? else {
                return Ok(None);
            };
            match self.read_block(&head)? {
                BlockOutcome::Read(block) => return Ok(Some((head, block))),
                BlockOutcome::Dropped => continue,
                BlockOutcome::Eof => return Ok(None),
            }
        }
    }

    fn next_head(&mut self) -> io::Result<Option<RecordHead>> {
        let mut line = Vec::new();
        'record: loop {
            let start = self.pos;
            match self.read_line(&mut line, MAX_LINE) {
                Ok(false) => return Ok(None),
                Ok(true) => {}
                Err(e) if is_corrupt(&e) => {
                    self.resyncing = true;
                    continue;
                }
                Err(e) => return Err(e),
            }
            if is_blank(&line) {
                continue;
            }
            if !is_version_line(&line) {
                if !self.resyncing {
                    self.problem(format_args!(
                        "unexpected data at offset {start}; skipping to the next WARC record"
                    ));
                    self.resyncing = true;
                }
                // Garbage without a final line break runs into the next version line.
                if let Some(k) = find(&line, b"WARC/1.").filter(|&k| is_version_line(&line[k..])) {
                    let rest = line[k..].to_vec();
                    self.unread(&rest);
                }
                continue;
            }
            self.resyncing = false;
            let member = self.inner.member_for(start);
            let mut fields: Vec<(String, String)> = Vec::new();
            let mut header_bytes = line.len();
            loop {
                let line_start = self.pos;
                match self.read_line(&mut line, MAX_LINE) {
                    Ok(false) => {
                        self.problem(format_args!(
                            "WARC record at offset {start} is truncated inside its header"
                        ));
                        return Ok(None);
                    }
                    Ok(true) => {}
                    Err(e) if is_corrupt(&e) => {
                        self.problem(format_args!(
                            "WARC record at offset {start} is damaged inside its header; skipped"
                        ));
                        self.resyncing = true;
                        continue 'record;
                    }
                    Err(e) => return Err(e),
                }
                header_bytes += line.len();
                if is_blank(&line) {
                    break;
                }
                if is_version_line(&line) {
                    self.problem(format_args!(
                        "WARC record at offset {start} has an unterminated header; \
                         a new record starts at {line_start}"
                    ));
                    let l = std::mem::take(&mut line);
                    self.unread(&l);
                    continue 'record;
                }
                let text = String::from_utf8_lossy(&line);
                let malformed = header_bytes > MAX_HEADER_BYTES || !line.ends_with(b"\n");
                if !malformed && text.starts_with([' ', '\t']) {
                    if let Some(last) = fields.last_mut() {
                        last.1.push(' ');
                        last.1.push_str(text.trim());
                        continue;
                    }
                }
                match text.split_once(':') {
                    Some((name, value)) if !malformed && !name.trim().is_empty() => {
                        fields.push((name.trim().to_string(), value.trim().to_string()));
                    }
                    _ => {
                        self.problem(format_args!(
                            "WARC record at offset {start} has a malformed header line at \
                             offset {line_start}; skipped"
                        ));
                        self.resyncing = true;
                        continue 'record;
                    }
                }
            }
            let content_length = fields
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
                .and_then(|(_, v)| v.trim().parse::<u64>().ok());
            let Some(content_length) = content_length else {
                self.problem(format_args!(
                    "WARC record at offset {start} has no valid Content-Length; skipped"
                ));
                self.resyncing = true;
                continue;
            };
            return Ok(Some(RecordHead {
                offset: start,
                member,
                fields,
                content_length,
            }));
        }
    }

    fn read_block(&mut self, head: &RecordHead) -> io::Result<BlockOutcome> {
        let offset = self.pos;
        let len = head.content_length;
        let keep = if len <= MAX_BLOCK { len } else { BLOCK_PREFIX };
        let mut data = Vec::with_capacity(keep.min(1 << 20) as usize);
        let mut result = self.by_ref().take(keep).read_to_end(&mut data).map(|_| ());
        let mut got = data.len() as u64;
        if result.is_ok() && got == keep && len > keep {
            result = io::copy(&mut self.by_ref().take(len - keep), &mut io::sink())
                .map(|skipped| got += skipped);
        }
        let what = || {
            head.field("WARC-Target-URI")
                .map(|u| format!(" ({u})"))
                .unwrap_or_default()
        };
        match result {
            Err(e) if is_corrupt(&e) => {
                let what = what();
                self.problem(format_args!(
                    "WARC record at offset {}{what} is damaged; skipped",
                    head.offset
                ));
                self.resyncing = true;
                return Ok(BlockOutcome::Dropped);
            }
            Err(e) => return Err(e),
            Ok(()) if got < len => {
                let what = what();
                self.problem(format_args!(
                    "WARC record at offset {}{what} is truncated: {got} of {len} block bytes; \
                     skipped",
                    head.offset
                ));
                // A Content-Length far too large looks the same as a truncated file: search
                // what was read for further records before giving up.
                if data.len() as u64 == got {
                    self.unread(&data);
                    self.resyncing = true;
                    return Ok(BlockOutcome::Dropped);
                }
                return Ok(BlockOutcome::Eof);
            }
            Ok(()) => {}
        }
        // The block must be followed by CRLF CRLF and then the next record or the end. If
        // it is not, Content-Length is wrong: drop the record and look for the next one
        // inside what was taken as its block.
        let mut tail = Vec::new();
        let aligned = loop {
            let data = match self.fill_buf() {
                Ok(d) => d,
                Err(e) if is_corrupt(&e) => {
                    self.resyncing = true;
                    break true;
                }
                Err(e) => return Err(e),
            };
            match data.first() {
                None | Some(b'W') => break true,
                _ if tail.len() >= 4 => break true,
                Some(&b @ (b'\r' | b'\n')) => {
                    tail.push(b);
                    self.consume(1);
                }
                Some(_) => break false,
            }
        };
        let complete = data.len() as u64 == len;
        if !aligned {
            let what = what();
            self.problem(format_args!(
                "WARC record at offset {}{what} does not end where its Content-Length says; \
                 skipped",
                head.offset
            ));
            if complete {
                data.extend_from_slice(&tail);
                self.unread(&data);
            }
            self.resyncing = true;
            return Ok(BlockOutcome::Dropped);
        }
        Ok(BlockOutcome::Read(Block {
            offset,
            data,
            complete,
        }))
    }
}

impl Read for RecordReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        super::read_through_buffer(self, buf)
    }
}

impl BufRead for RecordReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pb < self.pushback.len() {
            Ok(&self.pushback[self.pb..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, amt: usize) {
        if self.pb < self.pushback.len() {
            self.pb = (self.pb + amt).min(self.pushback.len());
            if self.pb == self.pushback.len() {
                self.pushback.clear();
                self.pb = 0;
            }
        } else {
            self.inner.consume(amt);
        }
        self.pos += amt as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_lines() {
        assert!(is_version_line(b"WARC/1.0\r\n"));
        assert!(is_version_line(b"WARC/1.1\n"));
        assert!(!is_version_line(b"WARC/1.1 and more\r\n"));
        assert!(!is_version_line(b"WARC-Type: response\r\n"));
    }
}

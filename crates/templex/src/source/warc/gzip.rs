//! Byte streams: plain files, and concatenated gzip members inflated one at a time with
//! their offsets remembered (what makes `.warc.gz` records seekable).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use flate2::bufread::GzDecoder;

use super::{GZ_BUF, invalid_data};

/// Open `path` at `offset`, detecting gzip by its magic bytes (not the file name).
pub(super) fn open_stream(path: &Path, offset: u64, label: Arc<str>) -> io::Result<(Stream, bool)> {
    let mut file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a WARC file",
        ));
    }
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let gzip = {
        let buf = reader.fill_buf()?;
        buf.len() >= 2 && buf[..2] == [0x1f, 0x8b]
    };
    let stream = if gzip {
        Stream::Gz(Box::new(GzMembers::new(
            Counted {
                inner: reader,
                pos: offset,
            },
            label,
        )))
    } else {
        Stream::Plain(reader)
    };
    Ok((stream, gzip))
}

/// The decompressed bytes of a WARC file.
pub(super) enum Stream {
    Plain(BufReader<File>),
    Gz(Box<GzMembers<BufReader<File>>>),
}

impl Stream {
    /// Compressed offset of the gzip member whose output starts exactly at `pos`.
    pub(super) fn member_for(&mut self, pos: u64) -> Option<u64> {
        match self {
            Stream::Plain(_) => None,
            Stream::Gz(g) => g.member_for(pos),
        }
    }

    pub(super) fn problems(&self) -> usize {
        match self {
            Stream::Plain(_) => 0,
            Stream::Gz(g) => g.problems,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        super::read_through_buffer(self, buf)
    }
}

impl BufRead for Stream {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Stream::Plain(r) => r.fill_buf(),
            Stream::Gz(g) => g.fill_buf(),
        }
    }

    fn consume(&mut self, amt: usize) {
        match self {
            Stream::Plain(r) => r.consume(amt),
            Stream::Gz(g) => g.consume(amt),
        }
    }
}

/// A buffered, seekable reader that knows its position.
struct Counted<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead + Seek> Counted<R> {
    fn seek_to(&mut self, pos: u64) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(pos))?;
        self.pos = pos;
        Ok(())
    }
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.pos += amt as u64;
    }
}

enum MemberState<R> {
    Between(Counted<R>),
    // Boxed: the inflate state is large and the state moves on every read.
    Member(Box<GzDecoder<Counted<R>>>),
    Poisoned,
}

/// Concatenated gzip members inflated one at a time (what `MultiGzDecoder` does), but
/// remembering where each member starts, both compressed and decompressed, so records can be
/// indexed by member; and, unlike `MultiGzDecoder`, surviving a corrupt member by skipping to
/// the next gzip magic after the broken member's start.
pub(super) struct GzMembers<R> {
    state: MemberState<R>,
    /// Compressed offset of the current member.
    member_start: u64,
    /// Member start not yet known to be a real member (it has produced no output yet).
    pending: Option<(u64, u64)>,
    /// (decompressed offset, compressed offset) of recent member starts.
    boundaries: VecDeque<(u64, u64)>,
    buf: Vec<u8>,
    lo: usize,
    hi: usize,
    /// Decompressed offset of `buf[hi]`.
    out_pos: u64,
    /// Inside a damaged stretch (already warned about).
    scanning: bool,
    label: Arc<str>,
    problems: usize,
}

impl<R: BufRead + Seek> GzMembers<R> {
    fn new(inner: Counted<R>, label: Arc<str>) -> Self {
        GzMembers {
            member_start: inner.pos,
            state: MemberState::Between(inner),
            pending: None,
            boundaries: VecDeque::new(),
            buf: vec![0; GZ_BUF],
            lo: 0,
            hi: 0,
            out_pos: 0,
            scanning: false,
            label,
            problems: 0,
        }
    }

    fn member_for(&mut self, pos: u64) -> Option<u64> {
        while self.boundaries.front().is_some_and(|&(d, _)| d < pos) {
            self.boundaries.pop_front();
        }
        self.boundaries
            .iter()
            .take_while(|&&(d, _)| d == pos)
            .last()
            .map(|&(_, c)| c)
    }

    fn commit_member(&mut self) {
        if let Some(b) = self.pending.take() {
            self.boundaries.push_back(b);
        }
        self.scanning = false;
    }

    /// Skip to the next `1f 8b`. Returns whether one was found and whether non-padding bytes
    /// were skipped on the way.
    fn seek_magic(r: &mut Counted<R>) -> io::Result<(bool, bool)> {
        let mut junk = false;
        loop {
            let data = r.fill_buf()?;
            if data.is_empty() {
                return Ok((false, junk));
            }
            let mut from = 0;
            let found = loop {
                match data[from..].iter().position(|&b| b == 0x1f) {
                    None => break None,
                    // A 0x1f at the buffer end is taken as a candidate; the decoder decides.
                    Some(j) if from + j + 1 == data.len() || data[from + j + 1] == 0x8b => {
                        break Some(from + j);
                    }
                    Some(j) => from += j + 1,
                }
            };
            let n = found.unwrap_or(data.len());
            junk |= data[..n]
                .iter()
                .any(|&b| b != 0 && !b.is_ascii_whitespace());
            r.consume(n);
            if found.is_some() {
                return Ok((true, junk));
            }
        }
    }
}

impl<R: BufRead + Seek> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        super::read_through_buffer(self, buf)
    }
}

impl<R: BufRead + Seek> BufRead for GzMembers<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.lo >= self.hi {
            match std::mem::replace(&mut self.state, MemberState::Poisoned) {
                MemberState::Poisoned => return Ok(&[]),
                MemberState::Between(mut r) => {
                    let at = r.pos;
                    let found = Self::seek_magic(&mut r);
                    let skipped = r.pos - at;
                    match found {
                        Err(e) => {
                            self.state = MemberState::Between(r);
                            return Err(e);
                        }
                        Ok((found, junk)) => {
                            if junk && !self.scanning {
                                tracing::warn!(
                                    file = %self.label,
                                    "skipped {skipped} bytes of non-gzip data at offset {at}"
                                );
                                self.problems += 1;
                            }
                            if !found {
                                self.state = MemberState::Between(r);
                                return Ok(&[]);
                            }
                            self.member_start = r.pos;
                            self.pending = Some((self.out_pos, r.pos));
                            self.state = MemberState::Member(Box::new(GzDecoder::new(r)));
                        }
                    }
                }
                MemberState::Member(mut d) => match d.read(&mut self.buf) {
                    Ok(0) => {
                        self.commit_member();
                        self.state = MemberState::Between((*d).into_inner());
                    }
                    Ok(n) => {
                        self.commit_member();
                        self.lo = 0;
                        self.hi = n;
                        self.out_pos += n as u64;
                        self.state = MemberState::Member(d);
                    }
                    Err(e) => {
                        self.pending = None;
                        let start = self.member_start;
                        if !self.scanning {
                            tracing::warn!(
                                file = %self.label,
                                "gzip member at offset {start} is truncated or corrupt ({e}); \
                                 skipping to the next member"
                            );
                            self.problems += 1;
                        }
                        self.scanning = true;
                        let mut r = d.into_inner();
                        let seek = r.seek_to(start + 1);
                        self.state = MemberState::Between(r);
                        seek?;
                        return Err(invalid_data(format!(
                            "corrupt gzip member at offset {start}: {e}"
                        )));
                    }
                },
            }
        }
        Ok(&self.buf[self.lo..self.hi])
    }

    fn consume(&mut self, amt: usize) {
        self.lo = (self.lo + amt).min(self.hi);
    }
}

//! Batch inputs as one stream of numbered records: WARC files (streamed, never indexed),
//! site mirror directories and single files, in the order given.

use std::path::{Path, PathBuf};

use url::Url;

use crate::source::warc::read_warc_pages;
use crate::source::{MirrorSource, read_page_file};

/// Largest file read as a page; bigger ones are reported, not read.
pub(crate) const MAX_FILE_BYTES: u64 = crate::source::MAX_PAGE_BYTES;

/// One input of a batch run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchInput {
    /// A WARC file (`.warc`, `.warc.gz`): every HTML response record.
    Warc(PathBuf),
    /// A site mirror: every HTML file below the directory, with URLs from the prefixes (or
    /// the directory name as host).
    Mirror {
        /// The mirror directory.
        dir: PathBuf,
        /// Site URL prefixes that map to the directory root.
        prefixes: Vec<String>,
    },
    /// One HTML file (plain or `.gz`).
    File(PathBuf),
}

impl BatchInput {
    /// Classify a path: WARC by name, mirror if a directory, else a file.
    pub fn from_path(path: impl AsRef<Path>, prefixes: &[String]) -> BatchInput {
        let path = path.as_ref().to_path_buf();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.ends_with(".warc") || name.ends_with(".warc.gz") {
            BatchInput::Warc(path)
        } else if path.is_dir() {
            BatchInput::Mirror {
                dir: path,
                prefixes: prefixes.to_vec(),
            }
        } else {
            BatchInput::File(path)
        }
    }

    /// The input as the user named it.
    pub fn label(&self) -> String {
        match self {
            BatchInput::Warc(p) | BatchInput::File(p) | BatchInput::Mirror { dir: p, .. } => {
                p.display().to_string()
            }
        }
    }

    /// A description of the input's current state (path, size, modification time), so that
    /// a resumed run can tell whether it still reads the same data.
    pub fn identity(&self) -> String {
        let p = match self {
            BatchInput::Warc(p) | BatchInput::File(p) | BatchInput::Mirror { dir: p, .. } => p,
        };
        let abs = p.canonicalize().unwrap_or_else(|_| p.clone());
        let meta = std::fs::metadata(&abs).ok();
        let size = meta.as_ref().map_or(0, |m| m.len());
        let mtime = meta
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        let prefixes = match self {
            BatchInput::Mirror { prefixes, .. } => prefixes.join(","),
            _ => String::new(),
        };
        format!("{}|{size}|{mtime}|{prefixes}", abs.display())
    }
}

/// A page read from an input.
#[derive(Debug, Clone)]
pub struct RecordIn {
    /// Position in the run (0-based, over all inputs): output lines are in this order.
    pub seq: u64,
    /// Where it came from: the file, or `WARC#n` for the n-th page record of a WARC.
    pub input: String,
    /// The page URL (the WARC target URI, the mirror URL; `None` for a loose file).
    pub url: Option<Url>,
    /// The undecoded body.
    pub body: Vec<u8>,
    /// Transport charset (WARC HTTP header).
    pub charset: Option<String>,
}

/// One item of the record stream: a page, or an input (part) that could not be read.
#[derive(Debug, Clone)]
pub enum Item {
    /// A page.
    Page(RecordIn),
    /// Something that should have been a page and could not be read.
    Failed {
        /// Position in the run.
        seq: u64,
        /// Which input (and where in it).
        input: String,
        /// The URL when known.
        url: Option<String>,
        /// Why.
        error: String,
    },
}

impl Item {
    /// The item with its position in the run set to `seq`.
    pub fn numbered(mut self, seq: u64) -> Item {
        match &mut self {
            Item::Page(r) => r.seq = seq,
            Item::Failed { seq: s, .. } => *s = seq,
        }
        self
    }

    /// The item's position in the run.
    pub fn seq(&self) -> u64 {
        match self {
            Item::Page(r) => r.seq,
            Item::Failed { seq, .. } => *seq,
        }
    }
}

/// Stream every record of `inputs`, numbered in order. Never holds more than one page.
pub fn records(inputs: &[BatchInput]) -> impl Iterator<Item = Item> + Send + 'static {
    into_records(inputs.to_vec())
}

/// [`records`] of inputs it owns (for a stream that outlives its caller's list).
pub fn into_records(inputs: Vec<BatchInput>) -> impl Iterator<Item = Item> + Send + 'static {
    inputs
        .into_iter()
        .flat_map(|input| -> Box<dyn Iterator<Item = Item> + Send> {
            match &input {
                BatchInput::Warc(path) => warc_items(path),
                BatchInput::Mirror { dir, prefixes } => mirror_items(dir, prefixes),
                BatchInput::File(path) => Box::new(std::iter::once(file_item(path))),
            }
        })
        .enumerate()
        .map(|(n, it)| it.numbered(n as u64))
}

/// The pages of a WARC, plus one `Failed` item for every damaged spot the reader skipped
/// (a truncated record, a corrupt gzip member), so that no record goes unaccounted.
struct WarcItems {
    pages: crate::source::warc::WarcPages,
    label: String,
    n: usize,
    reported: usize,
    pending: Option<Item>,
}

impl Iterator for WarcItems {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if let Some(p) = self.pending.take() {
            return Some(p);
        }
        let next = self.pages.next();
        let problems = self.pages.problems();
        let item = next.map(|p| {
            let input = format!("{}#{}", self.label, self.n);
            self.n += 1;
            match p {
                Ok(page) => Item::Page(RecordIn {
                    seq: 0,
                    input,
                    url: Some(page.final_url),
                    body: page.body,
                    charset: page.charset,
                }),
                Err(e) => Item::Failed {
                    seq: 0,
                    input,
                    url: None,
                    error: format!("WARC read error, rest of the file skipped: {e}"),
                },
            }
        });
        if problems > self.reported {
            // Damage found while reading up to this item comes first, in file order.
            self.reported += 1;
            self.pending = item;
            return Some(Item::Failed {
                seq: 0,
                input: format!("{} (damaged spot {})", self.label, self.reported),
                url: None,
                error: "damaged WARC record skipped (truncated or corrupt; see the log)".into(),
            });
        }
        item
    }
}

fn warc_items(path: &Path) -> Box<dyn Iterator<Item = Item> + Send> {
    let label = path.display().to_string();
    match read_warc_pages(path) {
        Err(e) => Box::new(std::iter::once(Item::Failed {
            seq: 0,
            input: label,
            url: None,
            error: format!("cannot read WARC: {e}"),
        })),
        Ok(pages) => Box::new(WarcItems {
            pages,
            label,
            n: 0,
            reported: 0,
            pending: None,
        }),
    }
}

fn mirror_items(dir: &Path, prefixes: &[String]) -> Box<dyn Iterator<Item = Item> + Send> {
    // Without a prefix, each mirror is its own site: its directory name as host, made a
    // host name when it is none (`compphys-uio` → `compphys-uio.localhost`).
    let own;
    let prefixes = if prefixes.is_empty() {
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "mirror".into());
        let host: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        own = vec![if host.contains('.') {
            host
        } else {
            format!("{host}.localhost")
        }];
        &own[..]
    } else {
        prefixes
    };
    let source = match MirrorSource::new(dir, prefixes) {
        Ok(s) => s,
        Err(e) => {
            return Box::new(std::iter::once(Item::Failed {
                seq: 0,
                input: dir.display().to_string(),
                url: None,
                error: format!("cannot open mirror: {e}"),
            }));
        }
    };
    let files = source.html_files();
    Box::new(files.into_iter().map(move |f| {
        let url = source.url_for_path(&f);
        match read_file(&f) {
            Ok(body) => Item::Page(RecordIn {
                seq: 0,
                input: f.display().to_string(),
                url,
                body,
                charset: None,
            }),
            Err(error) => Item::Failed {
                seq: 0,
                input: f.display().to_string(),
                url: url.map(|u| u.to_string()),
                error,
            },
        }
    }))
}

fn file_item(path: &Path) -> Item {
    match read_file(path) {
        Ok(body) => Item::Page(RecordIn {
            seq: 0,
            input: path.display().to_string(),
            url: None,
            body,
            charset: None,
        }),
        Err(error) => Item::Failed {
            seq: 0,
            input: path.display().to_string(),
            url: None,
            error,
        },
    }
}

/// Read a page file (see [`read_page_file`]), the error naming the file.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    read_page_file(path, MAX_FILE_BYTES).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

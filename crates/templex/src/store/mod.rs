//! The template store: learned templates per site and template cluster, kept in an SQLite
//! file so that a later run over new pages of known sites applies them without relearning.
//!
//! One row per learned template: its site (registrable domain), cluster number, method,
//! version (a site's templates learned by one run share a version; relearning a site makes a
//! new one), creation time, the number of pages it was learned from, the cluster's layout
//! fingerprint (to recognise the cluster's pages) and the model. Hash lists are stored as
//! little-endian `u64` blobs: compact, and read without parsing.
//!
//! Batch runs also record here which inputs they have finished learning from, so that an
//! interrupted run resumes without learning again (see [`crate::batch`]).
//!
//! # Hash scheme
//!
//! Fingerprints, SITELEVEL node hashes, table chunk keys and run keys are *stable hashes*:
//! XXH3-64 (seed 0) of an explicit byte encoding of what they identify — tag names, ids,
//! classes and text as their UTF-8 bytes, integers little-endian, fields length-prefixed so
//! that concatenations cannot collide, class sets as the XOR of their members' hashes — so
//! that they do not change with the platform, the release or a dependency update. The `meta`
//! table records their [`HASH_SCHEME`] beside the schema version.
//!
//! A store holding templates of another scheme — or of none: stores written before schemes
//! were recorded — is **refused** by [`TemplateStore::open`] ([`StoreError::HashScheme`]):
//! its templates would silently match no page, and relearning them behind the user's back
//! could cost a whole crawl's learning. The fix is [`TemplateStore::remove_stale`]
//! (`templex store prune --stale`): it removes the stale templates and runs and stamps the
//! store with this scheme; the next batch run learns the sites again. A store without
//! templates simply takes this scheme.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::cluster::Fingerprint;
use crate::pagelevel::SiteLevelModel;

/// Schema version written to the `meta` table; a store from a newer templex is refused.
pub const SCHEMA_VERSION: i64 = 1;

pub use crate::stable_hash::HASH_SCHEME;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed (cannot open, locked, corrupt, disk full…).
    #[error("template store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored model could not be decoded.
    #[error("template store: corrupt model of {site} cluster {cluster}: {why}")]
    Corrupt {
        /// Site of the bad row.
        site: String,
        /// Cluster of the bad row.
        cluster: i64,
        /// What was wrong.
        why: String,
    },
    /// The file was written by a newer templex.
    #[error("template store has schema version {0}, this templex knows up to {SCHEMA_VERSION}")]
    Schema(i64),
    /// The file holds templates hashed under another [`HASH_SCHEME`] (`None`: stores made
    /// before schemes were recorded); they would match no page.
    #[error(
        "template store holds templates {}; this templex hashes under scheme {HASH_SCHEME}, \
         so they would match no page. {}",
        describe_scheme(.found),
        stale_fix(.found)
    )]
    HashScheme {
        /// The store's scheme.
        found: Option<u32>,
    },
}

fn describe_scheme(found: &Option<u32>) -> String {
    match found {
        None => "of no recorded hash scheme (written before templex recorded one)".into(),
        Some(s) => format!("of hash scheme {s}"),
    }
}

fn stale_fix(found: &Option<u32>) -> &'static str {
    if found.is_some_and(|s| s > HASH_SCHEME) {
        "Use a newer templex, or remove them with `templex store prune --stale` (the next \
         batch run learns their sites again), or use another store file"
    } else {
        "Remove them with `templex store prune --stale` (the next batch run learns their \
         sites again), or use another store file"
    }
}

/// A page kept as a reference of its template cluster: pages of the cluster are mapped
/// against it (TemEx/HybEx without the search).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferencePage {
    /// Its URL, when known.
    pub url: Option<String>,
    /// Its undecoded body.
    #[serde(skip)]
    pub body: Vec<u8>,
    /// Its transport charset.
    pub charset: Option<String>,
}

/// A learned template model.
#[derive(Debug, Clone, PartialEq)]
pub enum LearnedModel {
    /// SITELEVEL: the cluster's frequent node hashes.
    SiteLevel(SiteLevelModel),
    /// Table text chunks: the cluster's template chunk keys.
    TableChunk(crate::tablechunk::TableChunkModel),
    /// HybEx against a pool of the cluster's pages (each page is mapped to the pool pages
    /// least like it that pass the template guard, as HybEx's menu siblings are pages of other
    /// types), with the cluster's SITELEVEL model for pages no reference maps.
    HybEx {
        /// The reference pool.
        references: Vec<ReferencePage>,
        /// SITELEVEL over the same sample.
        sitelevel: SiteLevelModel,
    },
}

impl LearnedModel {
    /// The method that learned the model (its name is stored with it).
    pub fn method(&self) -> crate::Method {
        match self {
            LearnedModel::SiteLevel(_) => crate::Method::SiteLevel,
            LearnedModel::HybEx { .. } => crate::Method::HybEx,
            LearnedModel::TableChunk(_) => crate::Method::TableChunk,
        }
    }

    /// Entries in the model (hashes, or reference pages).
    pub fn entries(&self) -> usize {
        match self {
            LearnedModel::SiteLevel(m) => m.hashes.len(),
            LearnedModel::HybEx { references, .. } => references.len(),
            LearnedModel::TableChunk(m) => m.chunks.len(),
        }
    }

    /// Parameters as JSON and the bulk as a blob.
    fn encode(&self) -> (String, Vec<u8>) {
        match self {
            LearnedModel::SiteLevel(m) => (
                serde_json::json!({"pages": m.pages, "cover": m.cover}).to_string(),
                u64s_to_blob(&m.hashes),
            ),
            LearnedModel::TableChunk(m) => {
                let mut params = m.clone();
                params.chunks.clear();
                let blob = m
                    .chunks
                    .iter()
                    .flat_map(|(k, df)| k.to_le_bytes().into_iter().chain(df.to_le_bytes()))
                    .collect();
                (serde_json::to_string(&params).unwrap_or_default(), blob)
            }
            LearnedModel::HybEx {
                references,
                sitelevel,
            } => {
                let lens: Vec<usize> = references.iter().map(|r| r.body.len()).collect();
                let params = serde_json::json!({
                    "pages": references,
                    "lengths": lens,
                    "sitelevel": {"pages": sitelevel.pages, "cover": sitelevel.cover},
                    "hashes": sitelevel.hashes.len(),
                })
                .to_string();
                let mut blob = u64s_to_blob(&sitelevel.hashes);
                for r in references {
                    blob.extend_from_slice(&r.body);
                }
                (params, blob)
            }
        }
    }

    fn decode(method: &str, params: &str, blob: &[u8]) -> Result<LearnedModel, String> {
        match method {
            "tablechunk" => {
                let mut m: crate::tablechunk::TableChunkModel =
                    serde_json::from_str(params).map_err(|e| e.to_string())?;
                if blob.len() % 12 != 0 {
                    return Err(format!("blob of {} bytes is not a chunk list", blob.len()));
                }
                m.chunks = blob
                    .chunks_exact(12)
                    .map(|c| {
                        let k = u64::from_le_bytes(c[..8].try_into().unwrap_or([0; 8]));
                        let df = u32::from_le_bytes(c[8..].try_into().unwrap_or([0; 4]));
                        (k, df)
                    })
                    .collect();
                if m.chunks.windows(2).any(|w| w[0].0 >= w[1].0) {
                    return Err("chunk keys not sorted".into());
                }
                Ok(LearnedModel::TableChunk(m))
            }
            "hybex" => {
                #[derive(Deserialize)]
                struct S {
                    pages: usize,
                    cover: f64,
                }
                #[derive(Deserialize)]
                struct P {
                    pages: Vec<ReferencePage>,
                    lengths: Vec<usize>,
                    sitelevel: S,
                    hashes: usize,
                }
                let p: P = serde_json::from_str(params).map_err(|e| e.to_string())?;
                let hash_bytes = p.hashes.checked_mul(8).ok_or("hash count overflows")?;
                let total = p
                    .lengths
                    .iter()
                    .try_fold(hash_bytes, |a, l| a.checked_add(*l));
                if p.pages.len() != p.lengths.len() || total != Some(blob.len()) {
                    return Err("model sizes do not match the blob".into());
                }
                let hashes = blob_to_u64s(&blob[..hash_bytes])?;
                let mut at = hash_bytes;
                let mut references = p.pages;
                for (page, len) in references.iter_mut().zip(p.lengths) {
                    page.body = blob[at..at + len].to_vec();
                    at += len;
                }
                Ok(LearnedModel::HybEx {
                    references,
                    sitelevel: SiteLevelModel {
                        pages: p.sitelevel.pages,
                        cover: p.sitelevel.cover,
                        hashes,
                    },
                })
            }
            "sitelevel" => {
                #[derive(Deserialize)]
                struct P {
                    pages: usize,
                    cover: f64,
                }
                let p: P = serde_json::from_str(params).map_err(|e| e.to_string())?;
                let hashes = blob_to_u64s(blob)?;
                if hashes.windows(2).any(|w| w[0] >= w[1]) {
                    return Err("hashes not sorted".into());
                }
                Ok(LearnedModel::SiteLevel(SiteLevelModel {
                    pages: p.pages,
                    cover: p.cover,
                    hashes,
                }))
            }
            other => Err(format!("unknown method {other:?}")),
        }
    }
}

fn u64s_to_blob(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|h| h.to_le_bytes()).collect()
}

fn blob_to_u64s(b: &[u8]) -> Result<Vec<u64>, String> {
    if b.len() % 8 != 0 {
        return Err(format!("blob of {} bytes is not a u64 list", b.len()));
    }
    Ok(b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

/// A template to store.
#[derive(Debug, Clone)]
pub struct NewTemplate {
    /// Registrable domain (or the input's own site key).
    pub site: String,
    /// Cluster number within the site.
    pub cluster: u32,
    /// Pages the model was learned from.
    pub pages: usize,
    /// The cluster's layout fingerprint core.
    pub core: Fingerprint,
    /// The model.
    pub model: LearnedModel,
}

/// A stored template.
#[derive(Debug, Clone)]
pub struct StoredTemplate {
    /// Row id.
    pub id: i64,
    /// Site.
    pub site: String,
    /// Cluster number within the site.
    pub cluster: u32,
    /// Version (generation) of the site's templates.
    pub version: u32,
    /// Creation time, UTC, RFC 3339.
    pub created_at: String,
    /// Pages learned from.
    pub pages: usize,
    /// Layout fingerprint core.
    pub core: Fingerprint,
    /// The model.
    pub model: LearnedModel,
    /// Key of the batch run that learned it, if a run did.
    pub run: Option<String>,
}

/// One line of `templex store list`.
#[derive(Debug, Clone, Serialize)]
pub struct TemplateSummary {
    /// Row id.
    pub id: i64,
    /// Site.
    pub site: String,
    /// Cluster number.
    pub cluster: u32,
    /// Method.
    pub method: String,
    /// Version.
    pub version: u32,
    /// Creation time (UTC).
    pub created_at: String,
    /// Pages learned from.
    pub pages: usize,
    /// Layout paths in the fingerprint core.
    pub core_paths: usize,
    /// Size of the model: hashes (SITELEVEL) or reference pages (HybEx).
    pub model_entries: usize,
}

/// What `prune` removes.
#[derive(Debug, Clone, Default)]
pub struct PruneOptions {
    /// Only this site (all sites when `None`).
    pub site: Option<String>,
    /// Templates created more than this many days ago.
    pub older_than_days: Option<f64>,
    /// Keep only the newest `n` versions of every site (older versions go).
    pub keep_versions: Option<u32>,
    /// Report what would go without deleting.
    pub dry_run: bool,
}

/// The SQLite template store.
pub struct TemplateStore {
    conn: Connection,
}

impl std::fmt::Debug for TemplateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemplateStore")
            .field("path", &self.conn.path())
            .finish()
    }
}

/// Insert a template row, unless the run (when one is given) has stored the cluster already.
const INSERT_TEMPLATE: &str =
    "INSERT INTO templates (site, cluster, method, version, pages, core, params, model, run)
     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
     WHERE ?9 IS NULL OR NOT EXISTS
         (SELECT 1 FROM templates WHERE site = ?1 AND cluster = ?2 AND run = ?9)";

/// Run [`INSERT_TEMPLATE`] for one template; the rows inserted (0 or 1).
fn insert_template(
    stmt: &mut rusqlite::CachedStatement<'_>,
    site: &str,
    t: &NewTemplate,
    version: i64,
    run: Option<&str>,
) -> rusqlite::Result<usize> {
    let (params_json, blob) = t.model.encode();
    stmt.execute(params![
        site,
        t.cluster,
        t.model.method().name(),
        version,
        t.pages as i64,
        u64s_to_blob(&t.core.0),
        params_json,
        blob,
        run
    ])
}

/// Record this templex's [`HASH_SCHEME`] in the `meta` table.
fn set_hash_scheme(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('hash_scheme', ?1)",
        params![HASH_SCHEME.to_string()],
    )?;
    Ok(())
}

impl TemplateStore {
    /// Open (creating if needed) a store file. A store of another hash scheme is refused
    /// ([`StoreError::HashScheme`]; see the [module docs](self)).
    pub fn open(path: impl AsRef<Path>) -> Result<TemplateStore, StoreError> {
        let store = Self::init(Connection::open(path)?)?;
        match store.stale_scheme()? {
            Some(found) => Err(StoreError::HashScheme { found }),
            None => Ok(store),
        }
    }

    /// A store that lives in memory only (nothing survives the process).
    pub fn in_memory() -> Result<TemplateStore, StoreError> {
        let store = Self::init(Connection::open_in_memory()?)?;
        store.stale_scheme()?;
        Ok(store)
    }

    /// Remove the templates and runs of a store file written under another hash scheme, and
    /// record this one; returns how many templates went (or would go, with `dry_run`). A
    /// store of this scheme is left as it is (0). The store opens with [`Self::open`]
    /// afterwards, and batch runs learn its sites again.
    pub fn remove_stale(path: impl AsRef<Path>, dry_run: bool) -> Result<usize, StoreError> {
        let mut store = Self::init(Connection::open(path)?)?;
        if store.stale_scheme()?.is_none() {
            return Ok(0);
        }
        let n: i64 = store
            .conn
            .query_row("SELECT COUNT(*) FROM templates", [], |r| r.get(0))?;
        if !dry_run {
            let tx = store.conn.transaction()?;
            // Run keys are stable hashes too: a run of the old scheme can never be resumed.
            tx.execute_batch("DELETE FROM templates; DELETE FROM runs;")?;
            set_hash_scheme(&tx)?;
            tx.commit()?;
        }
        Ok(n as usize)
    }

    /// The store's hash scheme when it holds templates of another one (`Some(None)`: of no
    /// recorded scheme). A store without templates takes this templex's scheme.
    fn stale_scheme(&self) -> Result<Option<Option<u32>>, StoreError> {
        let found: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'hash_scheme'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        // An unparsable value is another scheme as much as a missing one.
        let found = found.and_then(|v| v.parse::<u32>().ok());
        if found == Some(HASH_SCHEME) {
            return Ok(None);
        }
        let has_templates = self
            .conn
            .prepare("SELECT 1 FROM templates LIMIT 1")?
            .exists([])?;
        if has_templates {
            return Ok(Some(found));
        }
        set_hash_scheme(&self.conn)?;
        Ok(None)
    }

    fn init(conn: Connection) -> Result<TemplateStore, StoreError> {
        // Concurrent readers (a second templex listing the store) must not fail on a writer.
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS templates (
                 id INTEGER PRIMARY KEY,
                 site TEXT NOT NULL,
                 cluster INTEGER NOT NULL,
                 method TEXT NOT NULL,
                 version INTEGER NOT NULL,
                 created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                 pages INTEGER NOT NULL,
                 core BLOB NOT NULL,
                 params TEXT NOT NULL,
                 model BLOB NOT NULL,
                 UNIQUE (site, version, cluster)
             );
             CREATE INDEX IF NOT EXISTS templates_site ON templates (site, version);
             CREATE TABLE IF NOT EXISTS runs (
                 key TEXT PRIMARY KEY,
                 description TEXT NOT NULL,
                 learned_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
             );",
        )?;
        // Templates name the run that learned them (an interrupted run resumes by learning
        // again what it had learned, and must not store it twice); stores made before have
        // no such column and gain it.
        let has_run_column = conn
            .prepare("SELECT 1 FROM pragma_table_info('templates') WHERE name = 'run'")?
            .exists([])?;
        if !has_run_column {
            conn.execute_batch("ALTER TABLE templates ADD COLUMN run TEXT")?;
        }
        // Runs remember the last template stored before them.
        let has_start_column = conn
            .prepare("SELECT 1 FROM pragma_table_info('runs') WHERE name = 'start_id'")?
            .exists([])?;
        if !has_start_column {
            conn.execute_batch("ALTER TABLE runs ADD COLUMN start_id INTEGER")?;
        }
        let version: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()?;
        match version.and_then(|v| v.parse::<i64>().ok()) {
            Some(v) if v > SCHEMA_VERSION => return Err(StoreError::Schema(v)),
            Some(_) => {}
            None => {
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?1)",
                    params![SCHEMA_VERSION.to_string()],
                )?;
            }
        }
        Ok(TemplateStore { conn })
    }

    /// The newest version of a site's templates, ordered by cluster.
    pub fn site_templates(&self, site: &str) -> Result<Vec<StoredTemplate>, StoreError> {
        self.query_templates(
            "SELECT id, site, cluster, method, version, created_at, pages, core, params, model, run
             FROM templates
             WHERE site = ?1 AND version = (SELECT MAX(version) FROM templates WHERE site = ?1)
             ORDER BY cluster",
            params![site],
        )
    }

    /// A site's templates as run `run` sees them when it has learned its clusters below
    /// `below`: the newest version stored before the run began (unless `previous` is false:
    /// a run that relearns), then the run's own clusters below `below`, ordered by cluster.
    ///
    /// A resumed run learns again what it had learned before the interruption and must see
    /// the store as it was then, not with templates it stored later.
    pub fn run_view(
        &self,
        site: &str,
        run: &str,
        previous: bool,
        below: u32,
    ) -> Result<Vec<StoredTemplate>, StoreError> {
        self.query_templates(
            "SELECT id, site, cluster, method, version, created_at, pages, core, params, model, run
             FROM templates
             WHERE site = ?1 AND (
                 (?3 AND id <= (SELECT COALESCE(MAX(start_id), 0) FROM runs WHERE key = ?2)
                     AND version = (
                         SELECT MAX(version) FROM templates WHERE site = ?1
                         AND id <= (SELECT COALESCE(MAX(start_id), 0) FROM runs WHERE key = ?2)))
                 OR (run = ?2 AND cluster < ?4))
             ORDER BY cluster",
            params![site, run, previous, below],
        )
    }

    fn query_templates(
        &self,
        sql: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<StoredTemplate>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map(args, |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, i64>(6)?,
                r.get::<_, Vec<u8>>(7)?,
                r.get::<_, String>(8)?,
                r.get::<_, Vec<u8>>(9)?,
                r.get::<_, Option<String>>(10)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, site, cluster, method, version, created_at, pages, core, params, model, run) =
                row?;
            let corrupt = |why: String| StoreError::Corrupt {
                site: site.clone(),
                cluster,
                why,
            };
            let core = blob_to_u64s(&core).map_err(corrupt)?;
            let model = LearnedModel::decode(&method, &params, &model).map_err(corrupt)?;
            out.push(StoredTemplate {
                id,
                site: site.clone(),
                cluster: cluster as u32,
                version: version as u32,
                created_at,
                pages: pages as usize,
                core: Fingerprint(core),
                model,
                run,
            });
        }
        Ok(out)
    }

    /// Store the templates run `run` learned for one site, in one transaction; returns how
    /// many were new. They join
    /// the version the run already stored for the site; else a new version when the site
    /// had none or `new_version` (a relearning run), else the newest. Clusters the run has
    /// stored already (a resumed run learning them again) are left as they are.
    pub fn save_learned(
        &mut self,
        site: &str,
        templates: &[NewTemplate],
        new_version: bool,
        run: &str,
    ) -> Result<usize, StoreError> {
        if templates.is_empty() {
            return Ok(0);
        }
        let mut inserted = 0;
        let tx = self.conn.transaction()?;
        {
            let own: Option<i64> = tx.query_row(
                "SELECT MAX(version) FROM templates WHERE site = ?1 AND run = ?2",
                params![site, run],
                |r| r.get(0),
            )?;
            let version = match own {
                Some(v) => v,
                None => {
                    let max: i64 = tx.query_row(
                        "SELECT COALESCE(MAX(version), 0) FROM templates WHERE site = ?1",
                        params![site],
                        |r| r.get(0),
                    )?;
                    if max == 0 || new_version {
                        max + 1
                    } else {
                        max
                    }
                }
            };
            let mut insert = tx.prepare_cached(INSERT_TEMPLATE)?;
            for t in templates {
                inserted += insert_template(&mut insert, site, t, version, Some(run))?;
            }
        }
        tx.commit()?;
        Ok(inserted)
    }

    /// Record that run `key` has started (once: a resumed run keeps its first record): its
    /// output can be resumed with this store, which it sees as it is now.
    pub fn begin_run(&mut self, key: &str, description: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT OR IGNORE INTO runs (key, description, start_id)
             VALUES (?1, ?2, (SELECT COALESCE(MAX(id), 0) FROM templates))",
            params![key, description],
        )?;
        Ok(())
    }

    /// Store templates learned by one run, as the next version of each site when the site
    /// had none yet this run; together with the run's record, in one transaction (all or
    /// nothing, so an interrupted run leaves the store as it was).
    pub fn save(
        &mut self,
        templates: &[NewTemplate],
        relearned_sites: &[String],
        run: Option<(&str, &str)>,
    ) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            let mut next_version = tx.prepare_cached(
                "SELECT COALESCE(MAX(version), 0) FROM templates WHERE site = ?1",
            )?;
            let mut insert = tx.prepare_cached(INSERT_TEMPLATE)?;
            let mut versions: std::collections::HashMap<&str, i64> = Default::default();
            for t in templates {
                let version = match versions.get(t.site.as_str()) {
                    Some(v) => *v,
                    None => {
                        let max: i64 = next_version.query_row(params![t.site], |r| r.get(0))?;
                        // New clusters of a known site join its current version; a relearned
                        // site starts a new one.
                        let v = if max == 0 || relearned_sites.contains(&t.site) {
                            max + 1
                        } else {
                            max
                        };
                        versions.insert(&t.site, v);
                        v
                    }
                };
                insert_template(&mut insert, &t.site, t, version, None)?;
            }
            if let Some((key, description)) = run {
                tx.execute(
                    "INSERT OR REPLACE INTO runs (key, description) VALUES (?1, ?2)",
                    params![key, description],
                )?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Whether a run with this key has started with this store (see [`Self::begin_run`]).
    pub fn has_run(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM runs WHERE key = ?1",
                params![key],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Every stored template, by site, version and cluster.
    pub fn list(&self, site: Option<&str>) -> Result<Vec<TemplateSummary>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, site, cluster, method, version, created_at, pages, length(core) / 8,
                    CASE method WHEN 'sitelevel' THEN length(model) / 8
                                WHEN 'tablechunk' THEN length(model) / 12
                         ELSE json_array_length(params, '$.pages') END
             FROM templates WHERE ?1 IS NULL OR site = ?1
             ORDER BY site, version, cluster",
        )?;
        let rows = stmt.query_map(params![site], |r| {
            Ok(TemplateSummary {
                id: r.get(0)?,
                site: r.get(1)?,
                cluster: r.get::<_, i64>(2)? as u32,
                method: r.get(3)?,
                version: r.get::<_, i64>(4)? as u32,
                created_at: r.get(5)?,
                pages: r.get::<_, i64>(6)? as usize,
                core_paths: r.get::<_, i64>(7)? as usize,
                model_entries: r.get::<_, i64>(8)? as usize,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Remove templates; returns how many rows went (or would go, with `dry_run`).
    pub fn prune(&mut self, opts: &PruneOptions) -> Result<usize, StoreError> {
        if opts.site.is_none() && opts.older_than_days.is_none() && opts.keep_versions.is_none() {
            // Nothing selected: refuse to empty the store by accident.
            return Ok(0);
        }
        let cond = "(?1 IS NULL OR site = ?1)
             AND (?2 IS NULL OR julianday('now') - julianday(created_at) > ?2)
             AND (?3 IS NULL OR version <= (SELECT MAX(version) FROM templates t2
                                            WHERE t2.site = templates.site) - ?3)";
        let args = params![
            opts.site,
            opts.older_than_days,
            opts.keep_versions.map(i64::from)
        ];
        if opts.dry_run {
            let n: i64 = self.conn.query_row(
                &format!("SELECT COUNT(*) FROM templates WHERE {cond}"),
                args,
                |r| r.get(0),
            )?;
            return Ok(n as usize);
        }
        Ok(self
            .conn
            .execute(&format!("DELETE FROM templates WHERE {cond}"), args)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tpl(site: &str, cluster: u32, hashes: Vec<u64>) -> NewTemplate {
        NewTemplate {
            site: site.into(),
            cluster,
            pages: 10,
            core: Fingerprint(vec![1, 2, 3]),
            model: LearnedModel::SiteLevel(SiteLevelModel {
                pages: 10,
                cover: 0.85,
                hashes,
            }),
        }
    }

    #[test]
    fn save_load_versions_and_prune() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let mut s = TemplateStore::open(&path).unwrap();
        s.save(
            &[
                tpl("a.example", 0, vec![1, 5, 9]),
                tpl("b.example", 0, vec![2]),
            ],
            &[],
            Some(("run1", "test")),
        )
        .unwrap();
        assert!(s.has_run("run1").unwrap());
        assert!(!s.has_run("run2").unwrap());
        drop(s);
        // Reopened: the templates are there.
        let mut s = TemplateStore::open(&path).unwrap();
        let a = s.site_templates("a.example").unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].version, 1);
        assert_eq!(a[0].core, Fingerprint(vec![1, 2, 3]));
        assert_eq!(a[0].model, tpl("a.example", 0, vec![1, 5, 9]).model);
        // A new cluster of a known site joins its version; relearning makes version 2.
        s.save(&[tpl("a.example", 1, vec![3])], &[], None).unwrap();
        assert_eq!(s.site_templates("a.example").unwrap().len(), 2);
        s.save(&[tpl("a.example", 0, vec![4])], &["a.example".into()], None)
            .unwrap();
        let a = s.site_templates("a.example").unwrap();
        assert_eq!((a.len(), a[0].version), (1, 2));
        assert_eq!(s.list(None).unwrap().len(), 4);
        // Prune old versions: dry run first.
        let keep = PruneOptions {
            keep_versions: Some(1),
            dry_run: true,
            ..Default::default()
        };
        assert_eq!(s.prune(&keep).unwrap(), 2);
        assert_eq!(s.list(None).unwrap().len(), 4);
        let keep = PruneOptions {
            dry_run: false,
            ..keep
        };
        assert_eq!(s.prune(&keep).unwrap(), 2);
        assert_eq!(s.list(Some("a.example")).unwrap().len(), 1);
        // An empty selection deletes nothing; a site selection deletes that site.
        assert_eq!(s.prune(&PruneOptions::default()).unwrap(), 0);
        let site = PruneOptions {
            site: Some("b.example".into()),
            ..Default::default()
        };
        assert_eq!(s.prune(&site).unwrap(), 1);
        assert!(s.site_templates("b.example").unwrap().is_empty());
    }

    #[test]
    fn runs_see_the_store_as_it_was_and_store_once() {
        let mut s = TemplateStore::in_memory().unwrap();
        s.save(&[tpl("a.example", 0, vec![1])], &[], None).unwrap();
        assert!(!s.has_run("r").unwrap());
        s.begin_run("r", "test").unwrap();
        assert!(s.has_run("r").unwrap());
        // A new cluster joins the site's version; stored again, nothing changes.
        let new = [tpl("a.example", 1, vec![2])];
        assert_eq!(s.save_learned("a.example", &new, false, "r").unwrap(), 1);
        assert_eq!(s.save_learned("a.example", &new, false, "r").unwrap(), 0);
        let all = s.site_templates("a.example").unwrap();
        assert_eq!(all.len(), 2);
        assert!(all.iter().all(|t| t.version == 1));
        assert_eq!(all[1].run.as_deref(), Some("r"));
        // The run's own clusters below `below` only; another run sees everything.
        let clusters = |v: Vec<StoredTemplate>| v.iter().map(|t| t.cluster).collect::<Vec<_>>();
        assert_eq!(
            clusters(s.run_view("a.example", "r", true, 0).unwrap()),
            [0]
        );
        assert_eq!(
            clusters(s.run_view("a.example", "r", true, 2).unwrap()),
            [0, 1]
        );
        s.begin_run("p", "test").unwrap();
        assert_eq!(
            clusters(s.run_view("a.example", "p", true, 0).unwrap()),
            [0, 1]
        );
        // A relearning run starts a new version, sees none of the old one, and its later
        // rounds join its version.
        s.begin_run("q", "test").unwrap();
        assert!(s.run_view("a.example", "q", false, 0).unwrap().is_empty());
        s.save_learned("a.example", &[tpl("a.example", 0, vec![3])], true, "q")
            .unwrap();
        s.save_learned("a.example", &[tpl("a.example", 1, vec![4])], true, "q")
            .unwrap();
        let latest = s.site_templates("a.example").unwrap();
        assert_eq!(clusters(latest.clone()), [0, 1]);
        assert!(latest.iter().all(|t| t.version == 2));
        assert_eq!(
            clusters(s.run_view("a.example", "q", false, 1).unwrap()),
            [0]
        );
        // Run r, resumed, still sees version 1 (other runs') and its own cluster.
        let view = s.run_view("a.example", "r", true, 2).unwrap();
        assert!(view.iter().all(|t| t.version == 1), "{view:?}");
    }

    #[test]
    fn stores_without_run_column_gain_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE templates (
                     id INTEGER PRIMARY KEY, site TEXT NOT NULL, cluster INTEGER NOT NULL,
                     method TEXT NOT NULL, version INTEGER NOT NULL,
                     created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                     pages INTEGER NOT NULL, core BLOB NOT NULL, params TEXT NOT NULL,
                     model BLOB NOT NULL, UNIQUE (site, version, cluster));",
            )
            .unwrap();
        }
        let mut s = TemplateStore::open(&path).unwrap();
        s.save(&[tpl("a.example", 0, vec![1])], &[], None).unwrap();
        let t = s.site_templates("a.example").unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].run, None);
        drop(s);
        // Opening again finds the columns there.
        let mut s = TemplateStore::open(&path).unwrap();
        s.begin_run("r", "test").unwrap();
        assert_eq!(s.run_view("a.example", "r", true, 0).unwrap().len(), 1);
    }

    #[test]
    fn stores_of_another_hash_scheme_are_refused_until_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let mut s = TemplateStore::open(&path).unwrap();
        s.save(&[tpl("a.example", 0, vec![1])], &[], Some(("r", "test")))
            .unwrap();
        drop(s);
        let scheme = |v: Option<&str>| {
            let conn = Connection::open(&path).unwrap();
            conn.execute("DELETE FROM meta WHERE key = 'hash_scheme'", [])
                .unwrap();
            if let Some(v) = v {
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('hash_scheme', ?1)",
                    [v],
                )
                .unwrap();
            }
        };
        // Another scheme, no scheme (stores made before schemes), a newer one: refused,
        // with the fix named.
        for (v, found) in [
            (Some("0"), Some(0)),
            (None, None),
            (Some("junk"), None),
            (Some("999"), Some(999)),
        ] {
            scheme(v);
            let err = TemplateStore::open(&path).unwrap_err();
            assert!(
                matches!(err, StoreError::HashScheme { found: f } if f == found),
                "{err}"
            );
            assert!(
                err.to_string().contains("templex store prune --stale"),
                "{err}"
            );
        }
        assert!(err_newer_names_upgrade());
        // Clearing: a dry run counts, then the templates and runs go and the scheme is set.
        scheme(Some("0"));
        assert_eq!(TemplateStore::remove_stale(&path, true).unwrap(), 1);
        assert!(TemplateStore::open(&path).is_err());
        assert_eq!(TemplateStore::remove_stale(&path, false).unwrap(), 1);
        let s = TemplateStore::open(&path).unwrap();
        assert!(s.list(None).unwrap().is_empty());
        assert!(!s.has_run("r").unwrap());
        drop(s);
        // A store of this scheme is left alone.
        assert_eq!(TemplateStore::remove_stale(&path, false).unwrap(), 0);
        // A store without templates takes this scheme whatever it had.
        scheme(Some("0"));
        TemplateStore::open(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        let v: String = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'hash_scheme'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(v, HASH_SCHEME.to_string());
    }

    fn err_newer_names_upgrade() -> bool {
        let newer = StoreError::HashScheme {
            found: Some(HASH_SCHEME + 1),
        };
        let older = StoreError::HashScheme { found: None };
        newer.to_string().contains("newer templex")
            && !older.to_string().contains("newer templex")
            && older.to_string().contains("no recorded hash scheme")
    }

    #[test]
    fn corrupt_rows_and_newer_schemas_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let mut s = TemplateStore::open(&path).unwrap();
        s.save(&[tpl("a.example", 0, vec![1])], &[], None).unwrap();
        s.conn
            .execute("UPDATE templates SET model = x'0102'", [])
            .unwrap();
        assert!(matches!(
            s.site_templates("a.example"),
            Err(StoreError::Corrupt { .. })
        ));
        s.conn
            .execute("UPDATE meta SET value = '99' WHERE key = 'schema'", [])
            .unwrap();
        drop(s);
        assert!(matches!(
            TemplateStore::open(&path),
            Err(StoreError::Schema(99))
        ));
        // Not a database at all.
        let refs = LearnedModel::HybEx {
            sitelevel: SiteLevelModel {
                pages: 3,
                cover: 0.85,
                hashes: vec![4, 8],
            },
            references: vec![
                ReferencePage {
                    url: Some("https://a.example/x".into()),
                    body: b"<p>x</p>".to_vec(),
                    charset: None,
                },
                ReferencePage {
                    url: None,
                    body: b"<p>yy</p>".to_vec(),
                    charset: Some("utf-8".into()),
                },
            ],
        };
        let chunks = LearnedModel::TableChunk(crate::tablechunk::TableChunkModel {
            chunks: vec![(3, 7), (9, 2)],
            ..crate::tablechunk::learn(std::iter::empty(), &Default::default())
        });
        let (params, blob) = chunks.encode();
        assert_eq!(
            LearnedModel::decode("tablechunk", &params, &blob).unwrap(),
            chunks
        );
        let (params, blob) = refs.encode();
        assert_eq!(LearnedModel::decode("hybex", &params, &blob).unwrap(), refs);
        assert!(LearnedModel::decode("hybex", &params, &blob[1..]).is_err());
        let junk = dir.path().join("junk.sqlite");
        std::fs::write(&junk, b"this is not sqlite").unwrap();
        assert!(TemplateStore::open(&junk).is_err());
    }
}

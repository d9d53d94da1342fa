//! The template store: learned templates per site and template cluster, kept in an SQLite
//! file so that a later run over new pages of known sites applies them without relearning.
//!
//! One row per learned template: its site (registrable domain), cluster number, method,
//! version (a site's templates learned by one run share a version; relearning a site makes a
//! new one), creation time, the number of pages it was learned from, the cluster's layout
//! fingerprint (to recognise the cluster's pages, a little-endian `u64` blob) and the model
//! as its own codec encodes it, with the codec's scheme ([`model`]). This
//! module does SQL only: what a model holds and how it is applied is the model's business.
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
//!
//! # Model schemes
//!
//! Every row also names its model's codec scheme ([`LearnedModel::scheme`]); rows of stores
//! made before the column existed were written by scheme 1. A row of a scheme this templex
//! does not read is refused, on opening the store and on loading the row
//! ([`StoreError::ModelScheme`]), never decoded as something else;
//! [`TemplateStore::remove_stale`] removes such rows (and the runs that stored them).

pub(crate) mod model;

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::cluster::Fingerprint;
use crate::sitecontent::SiteContent;
use model::{DecodeError, LearnedModel, blob_to_u64s, u64s_to_blob};

pub(crate) use crate::template::hybex::ReferencePage;

/// Schema version written to the `meta` table; a store from a newer templex is refused.
pub(crate) const SCHEMA_VERSION: i64 = 1;

pub(crate) use crate::stable_hash::HASH_SCHEME;

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
    /// The file holds models whose codec scheme is not this templex's (a newer or older
    /// templex wrote them, `LearnedModel::scheme`); reading them would match nothing.
    #[error(
        "template store holds {rows} {method} template(s) of model scheme {found}, and this \
         templex reads {}: they cannot be applied. Remove them with `templex store prune \
         --stale` (the next batch run learns their sites again), or use another store file",
        expected.map_or("no such method".to_string(), |e| format!("scheme {e}"))
    )]
    ModelScheme {
        /// The method of the rows.
        method: String,
        /// Their scheme.
        found: u32,
        /// This templex's scheme for the method, if it knows the method.
        expected: Option<u32>,
        /// How many rows.
        rows: usize,
    },
    /// A template row given to [`TemplateStore::import`] cannot be used (another hash
    /// scheme, an unknown model scheme, a damaged model).
    #[error("template row of {site} cluster {cluster}: {why}")]
    BadRow {
        /// Site of the row.
        site: String,
        /// Cluster of the row.
        cluster: u32,
        /// What is wrong with it.
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
    /// What the cluster's pages show about their main content.
    pub content: SiteContent,
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
    /// What the cluster's pages show about their main content (empty for templates stored
    /// before templex learned it).
    pub content: SiteContent,
    /// Key of the batch run that learned it, if a run did.
    pub run: Option<String>,
}

/// A stored template as portable data, to move templates between stores: a Spark job's
/// templates table, another machine's store ([`TemplateStore::export`],
/// [`TemplateStore::import`]). The model is as its codec encodes it; `hash_scheme` says
/// which hashes its fingerprint and model hold (a row of another scheme is refused).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateRow {
    /// Site (registrable domain).
    pub site: String,
    /// Cluster number within the site.
    pub cluster: u32,
    /// The method that learned it ([`crate::Method`] name).
    pub method: String,
    /// The model codec's scheme (`LearnedModel::scheme`).
    pub scheme: u32,
    /// The [`HASH_SCHEME`] of its hashes.
    pub hash_scheme: u32,
    /// Pages learned from.
    pub pages: u64,
    /// The cluster's layout fingerprint core: little-endian `u64`s.
    pub core: Vec<u8>,
    /// Model parameters (JSON).
    pub params: String,
    /// The model's bulk.
    pub model: Vec<u8>,
    /// What the cluster's pages show about their main content ([`SiteContent`] as JSON;
    /// empty when unknown).
    #[serde(default)]
    pub content: String,
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
    "INSERT INTO templates (site, cluster, method, version, pages, core, params, model, run, scheme,
                            content)
     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11
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
    let m = t.model.encode();
    stmt.execute(params![
        site,
        t.cluster,
        m.method.name(),
        version,
        t.pages as i64,
        u64s_to_blob(&t.core.0),
        m.params,
        m.blob,
        run,
        m.scheme,
        content_to_json(&t.content)
    ])
}

/// A cluster's content evidence as the `content` column keeps it (`NULL` when empty).
fn content_to_json(c: &SiteContent) -> Option<String> {
    (!c.is_empty()).then(|| serde_json::to_string(c).unwrap_or_default())
}

/// The evidence a `content` column holds (empty when `NULL` or empty).
fn content_from_json(json: Option<&str>) -> Result<SiteContent, String> {
    match json {
        None | Some("") => Ok(SiteContent::default()),
        Some(j) => serde_json::from_str(j).map_err(|e| format!("content evidence: {e}")),
    }
}

/// An SQL condition true of the rows whose model this templex reads.
fn current_models_sql() -> String {
    LearnedModel::schemes()
        .map(|(m, s)| format!("(method = '{}' AND scheme = {s})", m.name()))
        .collect::<Vec<_>>()
        .join(" OR ")
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
    /// Open (creating if needed) a store file. A store of another hash scheme, or with
    /// models of another codec scheme, is refused ([`StoreError::HashScheme`],
    /// [`StoreError::ModelScheme`]).
    pub fn open(path: impl AsRef<Path>) -> Result<TemplateStore, StoreError> {
        let store = Self::init(Connection::open(path)?)?;
        if let Some(found) = store.stale_scheme()? {
            return Err(StoreError::HashScheme { found });
        }
        if let Some((method, found, rows)) = store.stale_models()?.into_iter().next() {
            return Err(StoreError::ModelScheme {
                expected: LearnedModel::scheme_of(&method),
                method,
                found,
                rows,
            });
        }
        Ok(store)
    }

    /// A store that lives in memory only (nothing survives the process).
    pub fn in_memory() -> Result<TemplateStore, StoreError> {
        let store = Self::init(Connection::open_in_memory()?)?;
        store.stale_scheme()?;
        Ok(store)
    }

    /// Remove the templates and runs of a store file written under another hash scheme, and
    /// record this one; or else the templates whose models are of another codec scheme, and
    /// the runs that stored them. Returns how many templates went (or would go, with
    /// `dry_run`). A store with nothing stale is left as it is (0). The store opens with
    /// [`Self::open`] afterwards, and batch runs learn its sites again.
    pub fn remove_stale(path: impl AsRef<Path>, dry_run: bool) -> Result<usize, StoreError> {
        let mut store = Self::init(Connection::open(path)?)?;
        if store.stale_scheme()?.is_none() {
            let stale: usize = store.stale_models()?.iter().map(|s| s.2).sum();
            if stale > 0 && !dry_run {
                let current = current_models_sql();
                let tx = store.conn.transaction()?;
                tx.execute_batch(&format!(
                    "DELETE FROM runs WHERE key IN
                         (SELECT run FROM templates WHERE run IS NOT NULL AND NOT ({current}));
                     DELETE FROM templates WHERE NOT ({current});"
                ))?;
                tx.commit()?;
            }
            return Ok(stale);
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

    /// The (method, model scheme, rows) of the templates whose models this templex cannot
    /// read.
    fn stale_models(&self) -> Result<Vec<(String, u32, usize)>, StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT method, scheme, COUNT(*) FROM templates WHERE NOT ({})
             GROUP BY method, scheme ORDER BY method, scheme",
            current_models_sql()
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)? as u32,
                r.get::<_, i64>(2)? as usize,
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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
                 run TEXT,
                 scheme INTEGER NOT NULL DEFAULT 1,
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
        // Rows name their model's codec scheme ([`LearnedModel::scheme`]); rows of stores
        // made before were written by the codecs of scheme 1.
        let has_scheme_column = conn
            .prepare("SELECT 1 FROM pragma_table_info('templates') WHERE name = 'scheme'")?
            .exists([])?;
        if !has_scheme_column {
            conn.execute_batch(
                "ALTER TABLE templates ADD COLUMN scheme INTEGER NOT NULL DEFAULT 1",
            )?;
        }
        // Rows keep their cluster's content evidence; stores made before have none.
        let has_content_column = conn
            .prepare("SELECT 1 FROM pragma_table_info('templates') WHERE name = 'content'")?
            .exists([])?;
        if !has_content_column {
            conn.execute_batch("ALTER TABLE templates ADD COLUMN content TEXT")?;
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
            "SELECT id, site, cluster, method, version, created_at, pages, core, params, model, run,
                    scheme, content
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
            "SELECT id, site, cluster, method, version, created_at, pages, core, params, model, run,
                    scheme, content
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
                r.get::<_, i64>(11)?,
                r.get::<_, Option<String>>(12)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (
                id,
                site,
                cluster,
                method,
                version,
                created_at,
                pages,
                core,
                params,
                model,
                run,
                scheme,
                content,
            ) = row?;
            let corrupt = |why: String| StoreError::Corrupt {
                site: site.clone(),
                cluster,
                why,
            };
            let core = blob_to_u64s(&core).map_err(corrupt)?;
            let model = match LearnedModel::decode(&method, scheme as u32, &params, &model) {
                Ok(m) => m,
                Err(DecodeError::Scheme {
                    method,
                    found,
                    expected,
                }) => {
                    return Err(StoreError::ModelScheme {
                        method,
                        found,
                        expected,
                        rows: 1,
                    });
                }
                Err(DecodeError::Corrupt(why)) => return Err(corrupt(why)),
            };
            let content = content_from_json(content.as_deref()).map_err(corrupt)?;
            out.push(StoredTemplate {
                id,
                site: site.clone(),
                cluster: cluster as u32,
                version: version as u32,
                created_at,
                pages: pages as usize,
                core: Fingerprint(core),
                model,
                content,
                run,
            });
        }
        Ok(out)
    }

    /// The newest version of every site's templates (or of one site's) as portable rows,
    /// ordered by site and cluster.
    pub fn export(&self, site: Option<&str>) -> Result<Vec<TemplateRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT site, cluster, method, scheme, pages, core, params, model, content FROM templates t
             WHERE (?1 IS NULL OR site = ?1)
               AND version = (SELECT MAX(version) FROM templates WHERE site = t.site)
             ORDER BY site, cluster",
        )?;
        let rows = stmt.query_map(params![site], |r| {
            Ok(TemplateRow {
                site: r.get(0)?,
                cluster: r.get(1)?,
                method: r.get(2)?,
                scheme: r.get(3)?,
                hash_scheme: HASH_SCHEME,
                pages: r.get::<_, i64>(4)?.max(0) as u64,
                core: r.get(5)?,
                params: r.get(6)?,
                model: r.get(7)?,
                content: r.get::<_, Option<String>>(8)?.unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Store exported rows ([`export`](Self::export)) as their sites' newest templates: the
    /// rows of a site become a new version of it, which batch runs then apply as templates
    /// they learned. Every row is checked first (hash scheme, model scheme, the model
    /// decodes); one bad row stores nothing. Returns the rows stored.
    pub fn import(&mut self, rows: &[TemplateRow]) -> Result<usize, StoreError> {
        let mut by_site: std::collections::BTreeMap<&str, Vec<NewTemplate>> =
            std::collections::BTreeMap::new();
        for row in rows {
            let bad = |why: String| StoreError::BadRow {
                site: row.site.clone(),
                cluster: row.cluster,
                why,
            };
            if row.hash_scheme != HASH_SCHEME {
                return Err(bad(format!(
                    "its hashes are of scheme {}, this templex's of {HASH_SCHEME}",
                    row.hash_scheme
                )));
            }
            let core = blob_to_u64s(&row.core).map_err(bad)?;
            let model = LearnedModel::decode(&row.method, row.scheme, &row.params, &row.model)
                .map_err(|e| bad(e.to_string()))?;
            let content = content_from_json(Some(&row.content)).map_err(bad)?;
            let site_rows = by_site.entry(&row.site).or_default();
            if site_rows.iter().any(|t| t.cluster == row.cluster) {
                return Err(bad("the rows hold this cluster twice".into()));
            }
            site_rows.push(NewTemplate {
                site: row.site.clone(),
                cluster: row.cluster,
                pages: usize::try_from(row.pages).unwrap_or(usize::MAX),
                core: Fingerprint(core),
                model,
                content,
            });
        }
        let tx = self.conn.transaction()?;
        let mut stored = 0;
        {
            let mut insert = tx.prepare_cached(INSERT_TEMPLATE)?;
            for (site, templates) in &by_site {
                let version: i64 = tx.query_row(
                    "SELECT COALESCE(MAX(version), 0) + 1 FROM templates WHERE site = ?1",
                    params![site],
                    |r| r.get(0),
                )?;
                for t in templates {
                    stored += insert_template(&mut insert, site, t, version, None)?;
                }
            }
        }
        tx.commit()?;
        Ok(stored)
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
                    params, length(model)
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
                model_entries: LearnedModel::encoded_entries(
                    &r.get::<_, String>(3)?,
                    &r.get::<_, String>(8)?,
                    r.get::<_, i64>(9)? as usize,
                ),
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
mod tests;

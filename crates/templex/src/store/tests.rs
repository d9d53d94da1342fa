//! The template store: rows, versions, runs, hash and model schemes, stale stores.

use super::*;
use crate::template::hybex::HybExModel;
use crate::template::sitelevel::SiteLevelModel;

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
        content: SiteContent {
            pages: 10,
            recurring: vec![cluster.into(), 42],
            slot: Some(7),
        },
    }
}

/// Exported rows carry a site's newest templates to another store, where batch runs
/// find them as that site's templates; rows of another hash scheme or damaged models
/// store nothing.
#[test]
fn export_import_round_trip() {
    let mut a = TemplateStore::in_memory().unwrap();
    a.begin_run("r", "test").unwrap();
    a.save_learned("a.example", &[tpl("a.example", 0, vec![7, 8])], false, "r")
        .unwrap();
    a.save_learned("b.example", &[tpl("b.example", 0, vec![9])], false, "r")
        .unwrap();
    // A relearned site: only its newest version is exported.
    a.save_learned("a.example", &[tpl("a.example", 1, vec![5])], true, "r2")
        .unwrap();
    let rows = a.export(None).unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| (r.site.as_str(), r.cluster))
            .collect::<Vec<_>>(),
        [("a.example", 1), ("b.example", 0)]
    );
    assert_eq!(a.export(Some("b.example")).unwrap(), rows[1..]);

    let mut b = TemplateStore::in_memory().unwrap();
    b.save_learned("a.example", &[tpl("a.example", 3, vec![1])], false, "old")
        .unwrap();
    assert_eq!(b.import(&rows).unwrap(), 2);
    let got = b.site_templates("a.example").unwrap();
    assert_eq!(got.len(), 1, "the import is the site's newest version");
    assert_eq!(got[0].model, tpl("a.example", 1, vec![5]).model);
    assert_eq!(got[0].core, Fingerprint(vec![1, 2, 3]));
    assert_eq!(b.export(None).unwrap(), rows);

    let mut stale = rows.clone();
    stale[1].hash_scheme = HASH_SCHEME + 1;
    let err = b.import(&stale).unwrap_err().to_string();
    assert!(err.contains("b.example") && err.contains("scheme"), "{err}");
    let mut damaged = rows.clone();
    damaged[0].core.pop();
    assert!(matches!(
        b.import(&damaged),
        Err(StoreError::BadRow { cluster: 1, .. })
    ));
    let mut unknown = rows.clone();
    unknown[0].scheme = 99;
    assert!(b.import(&unknown).is_err());
    let twice = [rows[1].clone(), rows[1].clone()];
    let err = b.import(&twice).unwrap_err().to_string();
    assert!(err.contains("twice"), "{err}");
    assert_eq!(
        b.site_templates("b.example").unwrap().len(),
        1,
        "nothing stored"
    );
}

#[test]
fn save_load_versions_and_prune() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.sqlite");
    let mut s = TemplateStore::open(&path).unwrap();
    s.begin_run("run1", "test").unwrap();
    for t in [
        tpl("a.example", 0, vec![1, 5, 9]),
        tpl("b.example", 0, vec![2]),
    ] {
        s.save_learned(&t.site.clone(), &[t], false, "run1")
            .unwrap();
    }
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
    s.begin_run("run2", "test").unwrap();
    s.save_learned("a.example", &[tpl("a.example", 1, vec![3])], false, "run2")
        .unwrap();
    assert_eq!(s.site_templates("a.example").unwrap().len(), 2);
    s.begin_run("run3", "test").unwrap();
    s.save_learned("a.example", &[tpl("a.example", 0, vec![4])], true, "run3")
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
    s.begin_run("earlier", "test").unwrap();
    s.save_learned(
        "a.example",
        &[tpl("a.example", 0, vec![1])],
        false,
        "earlier",
    )
    .unwrap();
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
        // Of this hash scheme (only the columns are old), with a row as templex wrote
        // it then: no run, no model scheme.
        conn.execute_batch(&format!(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO meta VALUES ('hash_scheme', '{HASH_SCHEME}');"
        ))
        .unwrap();
        let m = tpl("a.example", 0, vec![1]).model.encode();
        conn.execute(
            "INSERT INTO templates (site, cluster, method, version, pages, core, params, model)
             VALUES ('a.example', 0, ?1, 1, 10, ?2, ?3, ?4)",
            params![m.method.name(), u64s_to_blob(&[1, 2, 3]), m.params, m.blob],
        )
        .unwrap();
    }
    let s = TemplateStore::open(&path).unwrap();
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
    s.begin_run("r", "test").unwrap();
    s.save_learned("a.example", &[tpl("a.example", 0, vec![1])], false, "r")
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

#[test]
fn rows_of_another_model_scheme_are_refused_until_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.sqlite");
    let mut s = TemplateStore::open(&path).unwrap();
    s.begin_run("r", "test").unwrap();
    s.save_learned("a.example", &[tpl("a.example", 0, vec![1])], false, "r")
        .unwrap();
    s.save_learned("b.example", &[tpl("b.example", 0, vec![2])], false, "q")
        .unwrap();
    s.conn
        .execute(
            "UPDATE templates SET scheme = 7 WHERE site = 'a.example'",
            [],
        )
        .unwrap();
    // Read row by row, and on opening: refused, with the fix named.
    assert!(matches!(
        s.site_templates("a.example"),
        Err(StoreError::ModelScheme {
            found: 7,
            expected: Some(1),
            ..
        })
    ));
    drop(s);
    let err = TemplateStore::open(&path).unwrap_err();
    assert!(
        matches!(&err, StoreError::ModelScheme { method, found: 7, rows: 1, .. } if method == "sitelevel"),
        "{err}"
    );
    assert!(
        err.to_string().contains("templex store prune --stale"),
        "{err}"
    );
    // Pruning removes those rows and the run that stored them, nothing else.
    assert_eq!(TemplateStore::remove_stale(&path, true).unwrap(), 1);
    assert_eq!(TemplateStore::remove_stale(&path, false).unwrap(), 1);
    let s = TemplateStore::open(&path).unwrap();
    assert!(s.site_templates("a.example").unwrap().is_empty());
    assert_eq!(s.site_templates("b.example").unwrap().len(), 1);
    assert!(!s.has_run("r").unwrap());
    assert_eq!(TemplateStore::remove_stale(&path, false).unwrap(), 0);
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
    s.save_learned("a.example", &[tpl("a.example", 0, vec![1])], false, "r")
        .unwrap();
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
    let refs = LearnedModel::HybEx(HybExModel::new(
        vec![
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
        SiteLevelModel {
            pages: 3,
            cover: 0.85,
            hashes: vec![4, 8],
        },
    ));
    let chunks = LearnedModel::TableChunk(crate::template::tablechunk::TableChunkModel {
        chunks: vec![(3, 7), (9, 2)],
        ..crate::template::tablechunk::learn(std::iter::empty(), &Default::default())
    });
    let e = chunks.encode();
    assert_eq!(
        LearnedModel::decode("tablechunk", 1, &e.params, &e.blob).unwrap(),
        chunks
    );
    let e = refs.encode();
    assert_eq!(
        LearnedModel::decode("hybex", 1, &e.params, &e.blob).unwrap(),
        refs
    );
    assert!(LearnedModel::decode("hybex", 1, &e.params, &e.blob[1..]).is_err());
    assert!(matches!(
        LearnedModel::decode("hybex", 2, &e.params, &e.blob),
        Err(DecodeError::Scheme {
            found: 2,
            expected: Some(1),
            ..
        })
    ));
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, b"this is not sqlite").unwrap();
    assert!(TemplateStore::open(&junk).is_err());
}

//! In-process API tests: every endpoint, every error status, the limits.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::{App, Limits, ServerConfig, SiteConfig};

const KEY: &str = "https://www.riverbend-garden.example/garden/compost-guide.html";

fn example_site() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
}

fn app_with(limits: Limits) -> Arc<App> {
    Arc::new(
        App::new(ServerConfig {
            sites: vec![SiteConfig {
                mirror: example_site(),
                url_prefixes: vec!["https://www.riverbend-garden.example/".into()],
            }],
            limits,
            ..ServerConfig::default()
        })
        .expect("the example site opens"),
    )
}

fn app() -> Arc<App> {
    app_with(Limits::default())
}

async fn call(app: &Arc<App>, req: Request<Body>) -> (StatusCode, header::HeaderMap, Vec<u8>) {
    let r = app.clone().router().oneshot(req).await.expect("infallible");
    let (parts, body) = r.into_parts();
    let bytes = body.collect().await.expect("a body").to_bytes().to_vec();
    (parts.status, parts.headers, bytes)
}

fn post_json(path: &str, body: &Value) -> Request<Body> {
    Request::post(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .expect("a request")
}

fn post_raw(path: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post(path)
        .header(header::CONTENT_TYPE, "text/html")
        .body(body.into())
        .expect("a request")
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).expect("a request")
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

/// An error answer: the status, and a JSON body that says the same.
async fn expect_error(app: &Arc<App>, req: Request<Body>, status: u16, code: &str) -> Value {
    let (s, headers, body) = call(app, req).await;
    let v = parse(&body);
    assert_eq!(s.as_u16(), status, "{v}");
    assert_eq!(v["status"], status, "{v}");
    assert_eq!(v["code"], code, "{v}");
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    assert_eq!(
        headers.get(header::CONTENT_TYPE).map(|h| h.as_bytes()),
        Some(&b"application/json"[..])
    );
    v
}

#[tokio::test]
async fn health_sites_openapi_and_the_viewer() {
    let app = app();
    let (s, _, body) = call(&app, get("/v1/health")).await;
    assert_eq!(s, StatusCode::OK);
    let v = parse(&body);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["sites"], 1);
    assert_eq!(v["fetch"], false);

    let (_, _, body) = call(&app, get("/v1/sites")).await;
    let v = parse(&body);
    let pages: Vec<&str> = v[0]["pages"]
        .as_array()
        .expect("pages")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(pages.contains(&KEY), "{pages:?}");
    assert_eq!(v[0]["total_pages"], pages.len());

    let (s, _, body) = call(&app, get("/v1/openapi.json")).await;
    assert_eq!(s, StatusCode::OK);
    let doc = parse(&body);
    for path in [
        "/v1/content",
        "/v1/template",
        "/v1/sites",
        "/v1/health",
        "/v1/openapi.json",
        "/metrics",
        "/",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} undocumented");
        // The documented route exists (a GET or a POST answers something else than 404).
        let (s, _, _) = call(&app, get(path)).await;
        let (p, _, _) = call(&app, post_json(path, &json!({}))).await;
        assert!(
            s != StatusCode::NOT_FOUND || p != StatusCode::NOT_FOUND,
            "{path} is not routed"
        );
    }

    let (s, headers, body) = call(&app, get("/")).await;
    assert_eq!(s, StatusCode::OK);
    let csp = headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .expect("ascii");
    assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'self'"));
    let html = String::from_utf8(body).expect("utf-8");
    assert!(html.contains("/ui/app.js"));
    for external in ["src=\"http", "href=\"http", "src=\"//", "href=\"//"] {
        assert!(!html.contains(external), "the viewer loads {external}…");
    }
    for asset in ["/ui/app.js", "/ui/app.css"] {
        let (s, _, body) = call(&app, get(asset)).await;
        assert_eq!(s, StatusCode::OK);
        assert!(!body.is_empty());
    }
}

/// Answers validate against the schemas the OpenAPI document gives them.
#[tokio::test]
async fn answers_match_the_openapi_schemas() {
    let app = app();
    let (_, _, body) = call(&app, get("/v1/openapi.json")).await;
    let doc = parse(&body);
    let validate = |schema: &str, value: &Value| {
        let mut s = doc["components"]["schemas"][schema].clone();
        // Resolve the document's own references.
        s["components"] = doc["components"].clone();
        let validator = jsonschema::validator_for(&s).expect("a valid schema");
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{schema}: {errors:?} in {value}");
    };
    let (_, _, b) = call(&app, get("/v1/health")).await;
    validate("Health", &parse(&b));
    let (_, _, b) = call(&app, get("/v1/sites")).await;
    for site in parse(&b).as_array().expect("array") {
        validate("Site", site);
    }
    let (_, _, b) = call(&app, post_json("/v1/content", &json!({"url": KEY}))).await;
    validate("ContentRecord", &parse(&b));
    let (_, _, b) = call(
        &app,
        post_json(
            "/v1/template",
            &json!({"url": KEY, "method": "pagelevel", "include": ["annotated", "template", "view", "content"]}),
        ),
    )
    .await;
    validate("TemplateAnswer", &parse(&b));
    let (_, _, b) = call(&app, post_json("/v1/template", &json!({}))).await;
    validate("Error", &parse(&b));
}

#[tokio::test]
async fn content_of_raw_and_json_pages_is_the_librarys() {
    let app = app();
    let html = std::fs::read(example_site().join("garden/compost-guide.html")).expect("page");
    let expected = templex::extract_page(
        &html,
        &templex::PageHints::default(),
        &templex::ContentConfig::default(),
        &templex::Budget::default(),
    )
    .unwrap();
    let (s, _, body) = call(&app, post_raw("/v1/content", html.clone())).await;
    assert_eq!(s, StatusCode::OK);
    let v = parse(&body);
    assert_eq!(v["text"], expected.text());
    assert_eq!(v["method"], "maincontent");
    assert_eq!(v["input"], "-");

    let (_, _, body) = call(
        &app,
        post_json(
            "/v1/content",
            &json!({"html": String::from_utf8_lossy(&html), "format": "html"}),
        ),
    )
    .await;
    let v = parse(&body);
    let for_html = templex::extract_page(
        &html,
        &templex::PageHints::default(),
        &templex::ContentConfig {
            drop_captions: false,
            ..templex::ContentConfig::default()
        },
        &templex::Budget::default(),
    )
    .unwrap();
    assert_eq!(v["html"], for_html.html());
    assert!(v.get("text").is_none());

    let (_, _, body) = call(
        &app,
        post_raw(
            "/v1/content?format=markdown&url=https://a.example/x",
            html.clone(),
        ),
    )
    .await;
    let v = parse(&body);
    assert_eq!(v["url"], "https://a.example/x");
    assert!(v["text"].as_str().is_some_and(|t| t.contains('#')), "{v}");

    // `spread` reaches the library, in the query and in JSON.
    let container = templex::extract_page(
        &html,
        &templex::PageHints::default(),
        &templex::ContentConfig {
            spread: 0.0,
            ..templex::ContentConfig::default()
        },
        &templex::Budget::default(),
    )
    .unwrap();
    let (s, _, body) = call(&app, post_raw("/v1/content?spread=0", html.clone())).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(parse(&body)["text"], container.text());
    let (s, _, body) = call(
        &app,
        post_json(
            "/v1/content",
            &json!({"html": String::from_utf8_lossy(&html), "spread": 0}),
        ),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(parse(&body)["text"], container.text());
}

#[tokio::test]
async fn site_aware_content_and_template_are_the_clis() {
    let app = app();
    // As `templex content --site examples/site … KEY --format json`.
    let source = templex::sources::MirrorSource::new(
        example_site(),
        &["https://www.riverbend-garden.example/"],
    )
    .expect("mirror");
    let key = url::Url::parse(KEY).expect("url");
    let r = templex::extract_template(&source, &key, &templex::TemplateConfig::default())
        .expect("template");
    let (s, _, body) = call(&app, post_json("/v1/content", &json!({"url": KEY}))).await;
    assert_eq!(s, StatusCode::OK);
    let v = parse(&body);
    assert_eq!(
        v["text"],
        r.content(&templex::ContentConfig::default()).text()
    );
    assert_eq!(v["method"], "hybex");
    assert_eq!(v["pages_loaded"], r.loads.attempts);

    let (s, _, body) = call(
        &app,
        post_json(
            "/v1/template",
            &json!({"url": KEY, "include": ["view", "annotated"]}),
        ),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let v = parse(&body);
    let report = serde_json::to_value(templex::render::template_report(&r)).expect("json");
    for field in [
        "key_url",
        "method",
        "cs_pages",
        "template_paths",
        "pages_loaded",
        "stop",
    ] {
        assert_eq!(v[field], report[field], "{field}");
    }
    assert_eq!(
        v["annotated_html"],
        templex::render::annotated_html(&r.doc, &r.template)
    );
    let view = v["view_html"].as_str().expect("view");
    // Every template element the view keeps (it drops scripts, links, frames, refreshes,
    // and leaves <html> and <head> unmarked).
    let kept_template = r
        .doc
        .elements()
        .filter(|e| r.is_template(*e) && Some(*e) != r.doc.html() && Some(*e) != r.doc.head())
        .filter(|e| {
            !r.doc.ancestors(*e).chain([*e]).any(|a| {
                r.doc.element(a).is_some_and(|el| {
                    matches!(
                        &*el.name.local,
                        "script" | "noscript" | "iframe" | "link" | "base" | "object" | "embed"
                    ) || (&*el.name.local == "meta" && el.attr("http-equiv").is_some())
                })
            })
        })
        .count();
    assert_eq!(
        view.matches("data-tx-t=\"\"").count(),
        kept_template,
        "every template element is marked in the view"
    );
    assert!(view.contains("data-tx-croot=\"\""), "the content is marked");
    assert!(
        view.contains("data-tx-troot=\"\""),
        "template roots are marked"
    );
    assert!(
        view.contains("data-tx-seg"),
        "PAGELEVEL segments are marked"
    );
    assert!(!view.contains("<script") && !view.contains(" href="));
}

#[tokio::test]
async fn a_pasted_page_of_no_site_is_judged_alone() {
    let app = app();
    let page = "<html><body><nav><a href=/a>A</a><a href=/b>B</a></nav>\
                <article><h1>Title</h1><p>Some words of a paragraph that is long enough to be content.</p></article>\
                <script>alert(1)</script></body></html>";
    let (s, _, body) = call(
        &app,
        post_json("/v1/template", &json!({"html": page, "include": ["view"]})),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let v = parse(&body);
    assert_eq!(v["method"], "pagelevel");
    assert_eq!(v["key_url"], "https://pasted.invalid/");
    assert!(!v["view_html"].as_str().expect("view").contains("alert(1)"));
}

#[tokio::test]
async fn every_error_status() {
    let app = app();
    // 400: malformed JSON, unknown fields, unknown values, nothing to work on.
    expect_error(
        &app,
        post_json("/v1/content", &json!("x")),
        400,
        "bad_request",
    )
    .await;
    let bad = Request::post("/v1/content")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{not json"))
        .expect("request");
    expect_error(&app, bad, 400, "bad_request").await;
    expect_error(
        &app,
        post_json("/v1/content", &json!({"htm": "x"})),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_json("/v1/content", &json!({})),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_json("/v1/content", &json!({"html": "<p>x</p>", "spread": -1})),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_raw("/v1/content?spread=many", "<p>x</p>"),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_json("/v1/content", &json!({"url": "not a url"})),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_json("/v1/template", &json!({"url": KEY, "method": "magic"})),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_json("/v1/template", &json!({"url": KEY, "cs_size": 99})),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_raw("/v1/content?method=magic", "<p>x"),
        400,
        "bad_request",
    )
    .await;
    expect_error(
        &app,
        post_raw("/v1/content?nope=1", "<p>x"),
        400,
        "bad_request",
    )
    .await;
    // 404: an unknown page of a configured site, a page of no site with fetching off, an
    // unknown endpoint, and URLs that try to climb out of the mirror.
    expect_error(
        &app,
        post_json(
            "/v1/template",
            &json!({"url": "https://www.riverbend-garden.example/nope.html"}),
        ),
        404,
        "not_found",
    )
    .await;
    let v = expect_error(
        &app,
        post_json("/v1/content", &json!({"url": "https://example.org/"})),
        404,
        "not_found",
    )
    .await;
    assert!(
        v["error"]
            .as_str()
            .expect("message")
            .contains("fetching is off")
    );
    expect_error(&app, get("/v2/whatever"), 404, "not_found").await;
    for climb in [
        "https://www.riverbend-garden.example/../../Cargo.toml",
        "https://www.riverbend-garden.example/%2e%2e/%2e%2e/Cargo.toml",
        "https://www.riverbend-garden.example/..%2f..%2fCargo.toml",
        "https://www.riverbend-garden.example/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "https://www.riverbend-garden.example//etc/passwd",
    ] {
        expect_error(
            &app,
            post_json("/v1/content", &json!({"url": climb})),
            404,
            "not_found",
        )
        .await;
    }
    // 413: a body over the limit, announced or not.
    let small = app_with(Limits {
        max_body: 1000,
        ..Limits::default()
    });
    expect_error(
        &small,
        post_raw("/v1/content", vec![b'a'; 5000]),
        413,
        "too_large",
    )
    .await;
    let chunks = futures_like_stream(vec![vec![b'<'; 600], vec![b'p'; 600]]);
    expect_error(&small, post_raw("/v1/content", chunks), 413, "too_large").await;
    // 415: a template request that is not JSON.
    let (s, _, _) = call(&app, post_raw("/v1/template", "<p>x")).await;
    assert_eq!(s, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // 422: not HTML.
    expect_error(
        &app,
        post_raw("/v1/content", b"%PDF-1.7\n%\xe2\xe3".to_vec()),
        422,
        "not_html",
    )
    .await;
    let junk: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    expect_error(&app, post_raw("/v1/content", junk), 422, "not_html").await;
    let nuls = json!({"html": "\u{0}\u{1}".repeat(500)});
    expect_error(&app, post_json("/v1/template", &nuls), 422, "not_html").await;
    let pasted = json!({"html": "\u{0}\u{1}".repeat(500), "url": "https://www.riverbend-garden.example/garden/compost-guide.html", "method": "hybex"});
    expect_error(&app, post_json("/v1/content", &pasted), 422, "not_html").await;
    // 422: over the page budget, named; the worker is free for the next request.
    let tight = app_with(Limits {
        budget: templex::Budget {
            max_nodes: 1000,
            ..templex::Budget::default()
        },
        ..Limits::default()
    });
    let big = "<p>Some words.</p>".repeat(2000);
    expect_error(
        &tight,
        post_raw("/v1/content", big.clone()),
        422,
        "too_many_nodes",
    )
    .await;
    let (s, _, _) = call(&tight, post_raw("/v1/content", "<p>Some words.</p>")).await;
    assert_eq!(s, StatusCode::OK);
    // Malformed HTML is a page, never an error.
    let (s, _, _) = call(
        &app,
        post_raw("/v1/content", "<<<div><p></table></b>&#xZZ;"),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
}

/// A body sent in chunks without a length.
fn futures_like_stream(chunks: Vec<Vec<u8>>) -> Body {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(4);
    tokio::spawn(async move {
        for c in chunks {
            if tx.send(Ok(c)).await.is_err() {
                break;
            }
        }
    });
    let stream = tokio_stream_from(rx);
    Body::from_stream(stream)
}

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::Receiver<Result<Vec<u8>, std::io::Error>>,
) -> impl futures_core::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

#[tokio::test]
async fn overload_answers_503_with_retry_after_and_slow_work_504() {
    let app = app_with(Limits {
        workers: 1,
        queue: 0,
        timeout: Duration::from_millis(200),
        ..Limits::default()
    });
    // Every admission taken: the next request is refused at once.
    let held = app
        .admission
        .clone()
        .acquire_many_owned(1)
        .await
        .expect("permits");
    let (s, headers, body) = call(&app, post_raw("/v1/content", "<p>hello</p>")).await;
    assert_eq!(
        s,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert_eq!(headers[header::RETRY_AFTER], "1");
    assert_eq!(parse(&body)["code"], "overloaded");
    drop(held);
    // Admitted but no worker free within the time limit: 504.
    let worker = app.workers.clone().acquire_owned().await.expect("permit");
    let app2 = app_with(Limits {
        workers: 1,
        queue: 4,
        timeout: Duration::from_millis(200),
        ..Limits::default()
    });
    let busy = app2.workers.clone().acquire_owned().await.expect("permit");
    expect_error(
        &app2,
        post_raw("/v1/content", "<p>hello</p>"),
        504,
        "timeout",
    )
    .await;
    drop((worker, busy));
    // Free again: answered.
    let (s, _, _) = call(&app2, post_raw("/v1/content", "<p>hello</p>")).await;
    assert_eq!(s, StatusCode::OK);

    let (_, _, body) = call(&app2, get("/metrics")).await;
    let m = String::from_utf8(body).expect("utf-8");
    assert!(m.contains("templex_timeouts_total 1"), "{m}");
    assert!(
        m.contains("templex_http_requests_total{endpoint=\"/v1/content\",status=\"200\"} 1"),
        "{m}"
    );
    assert!(
        m.contains("templex_http_request_duration_seconds_bucket"),
        "{m}"
    );
    let (_, _, body) = call(&app, get("/metrics")).await;
    assert!(
        String::from_utf8(body)
            .expect("utf-8")
            .contains("templex_rejected_total 1")
    );
}

#[tokio::test]
async fn pages_loaded_are_counted_per_request_and_in_metrics() {
    let app = app();
    let mut handles = Vec::new();
    for _ in 0..4 {
        let app = app.clone();
        handles.push(tokio::spawn(async move {
            let (_, _, body) = call(&app, post_json("/v1/template", &json!({"url": KEY}))).await;
            parse(&body)["pages_loaded"].as_u64().expect("loaded")
        }));
    }
    let mut total = 0;
    for h in handles {
        let n = h.await.expect("task");
        assert_eq!(n, 4, "each request counts its own loads");
        total += n;
    }
    let (_, _, body) = call(&app, get("/metrics")).await;
    let m = String::from_utf8(body).expect("utf-8");
    assert!(
        m.contains(&format!("templex_pages_loaded_total {total}")),
        "{m}"
    );
}

/// The engine stops at the page budget's time in every stage, so the budget a request's work
/// gets is capped at what is left of the request's time limit, and so is the whole call of
/// a site-level request: a request answered 504 frees its worker then, not when its page and
/// its siblings are done.
#[tokio::test]
async fn the_work_gets_no_more_time_than_the_request_has_left() {
    let short = app_with(Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    });
    let a = crate::work::run(&short, Ok).await.expect("ran");
    assert!(
        a.left <= Duration::from_millis(300) && a.left > Duration::ZERO,
        "{a:?}"
    );
    assert_eq!(a.budget.max_time, a.left);
    assert_eq!(a.budget.max_nodes, templex::Budget::DEFAULT.max_nodes);
    let long = app_with(Limits::default());
    let a = crate::work::run(&long, Ok).await.expect("ran");
    assert_eq!(
        a.budget.max_time,
        templex::Budget::DEFAULT.max_time,
        "{a:?}"
    );
    let within = crate::api::within(templex::TemplateConfig::hybex(), a);
    assert!(
        within.search.time_budget <= a.left,
        "{:?}",
        within.search.time_budget
    );
    assert_eq!(
        within.time_limit,
        Some(a.left),
        "the whole call, siblings included"
    );
}

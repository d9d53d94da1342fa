//! The routes: `/v1/content`, `/v1/template`, `/v1/sites`, `/v1/health`, `/v1/openapi.json`,
//! `/metrics`, and the viewer.

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::{Deserialize, Serialize};
use templex::duplicates::{FingerprintConfig, Fingerprinter};
use templex::render::{
    Rendering, ViewMarks, annotated_html, template_html, template_report, view_html,
};
use templex::{
    ContentConfig, ContentRecord, LoadError, Method, PageError, PageHints, PageSource,
    TemplateConfig, TemplateReport, TemplateResult, extract_page, extract_template,
};
use url::Url;

use crate::error::ApiError;
use crate::metrics::{EndpointLabels, RequestLabels};
use crate::sites::{App, RequestSource};
use crate::work::Allowance;
use crate::{ui, work};

/// The policy of the inert page copy the viewer frames: it may load nothing at all.
const VIEW_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; \
                        font-src data:; base-uri 'none'; form-action 'none'";

/// The page pasted without a URL is known by this one (`.invalid` never resolves).
const PASTED_URL: &str = "https://pasted.invalid/";

impl App {
    /// The server's routes: the API under `/v1`, `/metrics`, and the viewer at `/`.
    pub fn router(self: Arc<Self>) -> Router {
        Router::new()
            .route("/v1/content", post(content))
            .route("/v1/template", post(template))
            .route("/v1/sites", get(sites))
            .route("/v1/health", get(health))
            .route("/v1/openapi.json", get(openapi))
            .route("/metrics", get(metrics))
            .merge(ui::routes())
            .fallback(not_found)
            .layer(middleware::from_fn_with_state(self.clone(), track))
            .with_state(self)
    }
}

/// Count, time and label every request; no endpoint answers without a JSON error or a body.
async fn track(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let endpoint = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let t0 = Instant::now();
    app.metrics.in_flight.inc();
    let mut response = next.run(req).await;
    app.metrics.in_flight.dec();
    app.metrics
        .latency
        .get_or_create(&EndpointLabels {
            endpoint: endpoint.clone(),
        })
        .observe(t0.elapsed().as_secs_f64());
    app.metrics
        .requests
        .get_or_create(&RequestLabels {
            endpoint,
            status: response.status().as_u16(),
        })
        .inc();
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such endpoint (see /v1/openapi.json)")
}

async fn health(State(app): State<Arc<App>>) -> Response {
    json(
        StatusCode::OK,
        &serde_json::json!({
            "status": "ok",
            "version": env!("CARGO_PKG_VERSION"),
            "sites": app.sites.len(),
            "fetch": app.http.is_some(),
            "uptime_s": app.started.elapsed().as_secs(),
        }),
    )
}

async fn sites(State(app): State<Arc<App>>) -> Response {
    json(StatusCode::OK, &app.site_infos())
}

async fn openapi() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        include_str!("../openapi.json"),
    )
        .into_response()
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        app.metrics.render(),
    )
        .into_response()
}

fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(body) => (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(e) => ApiError::internal(format!("cannot encode the answer: {e}")).into_response(),
    }
}

/// Read a body up to the server's limit (413 beyond, whatever Content-Length claims).
async fn read_body(app: &App, body: Body) -> Result<Bytes, ApiError> {
    let limit = app.limits.max_body;
    match Limited::new(body, limit).collect().await {
        Ok(c) => {
            let bytes = c.to_bytes();
            app.metrics.body_bytes.inc_by(bytes.len() as u64);
            Ok(bytes)
        }
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(ApiError::too_large(limit)),
        Err(e) => Err(ApiError::bad_request(format!(
            "cannot read the request body: {e}"
        ))),
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let v = v.split(';').next().unwrap_or("").trim();
            v.eq_ignore_ascii_case("application/json") || v.to_ascii_lowercase().ends_with("+json")
        })
}

fn parse_json<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad_request(format!("invalid JSON: {e}")))
}

fn parse_url(s: &str) -> Result<Url, ApiError> {
    Url::parse(s.trim()).map_err(|e| ApiError::bad_request(format!("invalid url {s:?}: {e}")))
}

/// A load failure as the status a client can act on.
fn load_error(url: &Url, e: LoadError) -> ApiError {
    match e {
        LoadError::NotFound(_) => ApiError::not_found(format!("no page at {url}")),
        LoadError::NotHtml { .. } => ApiError::not_html(e.to_string()),
        LoadError::Refused { error, .. } => page_error(error),
        LoadError::TooLarge { .. } => {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", e.to_string())
        }
        LoadError::RobotsDisallowed(_) | LoadError::PrivateAddress { .. } => {
            ApiError::new(StatusCode::FORBIDDEN, "refused", e.to_string())
        }
        LoadError::Unsupported(_) => ApiError::bad_request(e.to_string()),
        other => ApiError::bad_gateway(format!("cannot load {url}: {other}")),
    }
}

/// A page the library refused (not HTML, or over the page budget) as the status a client can
/// act on; the code is the library's ([`PageError::code`]). Every page a request brings or
/// names goes through the library's refusal, so the API has no check of its own.
fn page_error(e: PageError) -> ApiError {
    let status = match e {
        PageError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    ApiError::new(status, e.code(), e.to_string())
}

// ---- /v1/content -------------------------------------------------------------------------

/// A `/v1/content` request: JSON, or a raw HTML body with the same fields as query
/// parameters.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContentRequest {
    /// The page's HTML; without it, `url` is loaded.
    #[serde(default)]
    html: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    format: Option<Rendering>,
    /// A site method makes the content site-aware (the page's site must be configured or
    /// fetching on); `maincontent` forces page-level.
    #[serde(default)]
    method: Option<Method>,
    #[serde(default)]
    comments: bool,
    #[serde(default)]
    captions: bool,
    /// Page-level: the container's share of what is not chrome under which the page
    /// spreads its content ([`ContentConfig::spread`]).
    #[serde(default)]
    spread: Option<f64>,
}

fn query_request(query: Option<&str>) -> Result<ContentRequest, ApiError> {
    let mut r = ContentRequest::default();
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        let flag = || matches!(v.as_ref(), "" | "1" | "true" | "yes");
        match k.as_ref() {
            "url" => r.url = Some(v.into_owned()),
            "format" => {
                r.format = Some(
                    serde_json::from_value(serde_json::Value::String(v.to_string())).map_err(
                        |_| {
                            ApiError::bad_request(format!(
                                "unknown format {v:?} (text, markdown, html)"
                            ))
                        },
                    )?,
                )
            }
            "method" => {
                r.method = Some(
                    v.parse::<Method>()
                        .map_err(|e| ApiError::bad_request(e.to_string()))?,
                )
            }
            "comments" => r.comments = flag(),
            "captions" => r.captions = flag(),
            "spread" => {
                r.spread = Some(v.parse::<f64>().map_err(|_| {
                    ApiError::bad_request(format!("spread must be a number, not {v:?}"))
                })?)
            }
            other => {
                return Err(ApiError::bad_request(format!(
                    "unknown query parameter {other:?}"
                )));
            }
        }
    }
    Ok(r)
}

async fn content(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(&app, body).await?;
    let (req, html) = if is_json(&headers) {
        let mut req: ContentRequest = parse_json(&bytes)?;
        if query.as_deref().is_some_and(|q| !q.is_empty()) {
            return Err(ApiError::bad_request(
                "a JSON request carries its options in the body, not the query",
            ));
        }
        let html = req.html.take().map(String::into_bytes);
        (req, html)
    } else {
        let req = query_request(query.as_deref())?;
        (req, Some(bytes.to_vec()))
    };
    let app2 = app.clone();
    // The fingerprints `templex content --format json --fingerprint` gives, computed on the
    // worker.
    let record = work::run(&app, move |allowance| {
        let mut fingerprinter = Fingerprinter::new(FingerprintConfig::default());
        content_job(&app2, req, html, allowance).map(|r| r.with_fingerprint(&mut fingerprinter))
    })
    .await?;
    if let Some(n) = record.pages_loaded {
        app.metrics.pages_loaded.inc_by(n as u64);
    }
    Ok(json(StatusCode::OK, &record))
}

fn content_job(
    app: &App,
    req: ContentRequest,
    html: Option<Vec<u8>>,
    allowance: Allowance,
) -> Result<ContentRecord, ApiError> {
    let rendering = req.format.unwrap_or_default();
    let defaults = ContentConfig::default();
    let spread = ContentConfig::spread_share(req.spread.unwrap_or(defaults.spread))
        .map_err(ApiError::bad_request)?;
    let config = ContentConfig {
        comments: req.comments,
        drop_captions: !(req.captions || rendering != Rendering::Text),
        spread,
        ..defaults
    };
    let url = req.url.as_deref().map(parse_url).transpose()?;
    let input = url.as_ref().map_or_else(|| "-".to_string(), Url::to_string);
    let site_method = req.method.filter(|m| *m != Method::MainContent);
    match (html, url) {
        (Some(html), url) => {
            // A site method and a page of a configured site: site-aware, with the client's
            // copy of the page as the key page.
            if let (Some(method), Some(url)) = (site_method, url.as_ref()) {
                if let Some(site) = app.site_source(url) {
                    let source = RequestSource::with_key(url.clone(), html, Some(site));
                    let job = SiteJob {
                        method,
                        config: &config,
                        rendering,
                        allowance,
                    };
                    return site_content(&source, url, job, input);
                }
            }
            let hints = PageHints { url, charset: None };
            let content =
                extract_page(&html, &hints, &config, &allowance.budget).map_err(page_error)?;
            Ok(ContentRecord::new(
                input,
                &content,
                rendering,
                None,
                Vec::new(),
            ))
        }
        (None, Some(url)) => {
            let (source, live) = app.source_for(&url)?;
            let method = req.method.unwrap_or(if live {
                Method::MainContent
            } else {
                Method::HybEx
            });
            let source = RequestSource::over(source);
            if method == Method::MainContent {
                let page = source.load(&url).map_err(|e| load_error(&url, e))?;
                let hints = PageHints {
                    url: Some(page.final_url),
                    charset: page.charset,
                };
                let content = extract_page(&page.body, &hints, &config, &allowance.budget)
                    .map_err(page_error)?;
                return Ok(ContentRecord::new(
                    input,
                    &content,
                    rendering,
                    Some(source.stats().attempts),
                    Vec::new(),
                ));
            }
            let job = SiteJob {
                method,
                config: &config,
                rendering,
                allowance,
            };
            site_content(&source, &url, job, input)
        }
        (None, None) => Err(ApiError::bad_request("give the page's html or its url")),
    }
}

/// What site-aware content is asked for.
struct SiteJob<'a> {
    method: Method,
    config: &'a ContentConfig,
    rendering: Rendering,
    allowance: Allowance,
}

/// Site-aware content, as `templex content --site` gives it.
fn site_content(
    source: &RequestSource,
    url: &Url,
    job: SiteJob<'_>,
    input: String,
) -> Result<ContentRecord, ApiError> {
    let SiteJob {
        method,
        config,
        rendering,
        allowance,
    } = job;
    let template = within(TemplateConfig::for_method(method), allowance);
    let r = extract_template(source, url, &template).map_err(|e| load_error(url, e))?;
    let content = r.content(config);
    let mut notes = r.notes.clone();
    if content.method() == Method::MainContent {
        notes.push("no site evidence: page-level content".into());
    }
    Ok(ContentRecord::new(
        input,
        &content,
        rendering,
        Some(r.loads.attempts),
        notes,
    ))
}

// ---- /v1/template ------------------------------------------------------------------------

/// Extra parts of a `/v1/template` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Include {
    /// `annotated_html`: the page with `class="template_node"` on template elements.
    Annotated,
    /// `template_html`: the reusable template.
    Template,
    /// `view_html`: the inert marked copy the viewer shows.
    View,
    /// `content`: the content as text and Markdown, and its title, author, date, language.
    Content,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateRequest {
    #[serde(default)]
    url: Option<String>,
    /// A pasted key page; its siblings come from the configured site of `url` if any.
    #[serde(default)]
    html: Option<String>,
    #[serde(default)]
    method: Option<Method>,
    #[serde(default)]
    cs_size: Option<usize>,
    #[serde(default)]
    votes: Option<usize>,
    #[serde(default)]
    guard: Option<f64>,
    #[serde(default)]
    max_loads: Option<usize>,
    #[serde(default)]
    site_pages: Option<usize>,
    #[serde(default)]
    fallback: Option<bool>,
    #[serde(default)]
    include: Vec<Include>,
}

#[derive(Debug, Serialize)]
struct ContentPart {
    #[serde(flatten)]
    metadata: templex::Metadata,
    method: Method,
    /// The page's main content.
    text: String,
    markdown: String,
    /// The page minus its template: everything the site does not repeat.
    rest: String,
}

#[derive(Debug, Serialize)]
struct TemplateAnswer {
    #[serde(flatten)]
    report: TemplateReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotated_html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    template_html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    view_html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<ContentPart>,
}

async fn template(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = read_body(&app, body).await?;
    if !is_json(&headers) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "bad_request",
            "/v1/template takes a JSON body (Content-Type: application/json)",
        ));
    }
    let req: TemplateRequest = parse_json(&bytes)?;
    let app2 = app.clone();
    let answer = work::run(&app, move |allowance| template_job(&app2, req, allowance)).await?;
    app.metrics
        .pages_loaded
        .inc_by(answer.report.pages_loaded as u64);
    Ok(json(StatusCode::OK, &answer))
}

fn template_config(req: &TemplateRequest, method: Method) -> Result<TemplateConfig, ApiError> {
    let mut c = TemplateConfig::for_method(method);
    if let Some(n) = req.cs_size {
        if !(2..=10).contains(&n) {
            return Err(ApiError::bad_request("cs_size must be between 2 and 10"));
        }
        c.search.size = n;
    }
    if let Some(v) = req.votes {
        c.mapping.votes = Some(v.max(1));
    }
    if let Some(g) = req.guard {
        if !(0.0..=1.0).contains(&g) {
            return Err(ApiError::bad_request("guard must be between 0 and 1"));
        }
        c.mapping.guard = g;
    }
    if let Some(n) = req.max_loads {
        // A client may ask for fewer loads, never for more than the defaults allow.
        c.search.max_loads = n.min(c.search.max_loads);
    }
    if let Some(n) = req.site_pages {
        c.sample.pages = n.min(c.sample.pages.max(64));
    }
    if let Some(f) = req.fallback {
        c.mapping.fallback = f;
    }
    Ok(c)
}

/// `config` within a request's allowance: the page budget, and the whole call (key page,
/// sibling search, mappings) no longer than the request has left, so that a request answered
/// 504 frees its worker then.
pub(crate) fn within(config: TemplateConfig, allowance: Allowance) -> TemplateConfig {
    let left = allowance.left;
    let mut config = config;
    config.budget = allowance.budget;
    config.search.time_budget = config.search.time_budget.min(left);
    config.time_limit = Some(config.time_limit.map_or(left, |t| t.min(left)));
    config
}

fn template_job(
    app: &App,
    req: TemplateRequest,
    allowance: Allowance,
) -> Result<TemplateAnswer, ApiError> {
    let url = req.url.as_deref().map(parse_url).transpose()?;
    let (source, key_url, default_method) = match (&req.html, url) {
        (Some(html), url) => {
            let url = match url {
                Some(u) => u,
                None => Url::parse(PASTED_URL).expect("a valid URL"),
            };
            let site = app.site_source(&url);
            // Without a site there are no siblings: the page alone decides.
            let method = if site.is_some() {
                Method::HybEx
            } else {
                Method::PageLevel
            };
            let source = RequestSource::with_key(url.clone(), html.clone().into_bytes(), site);
            (source, url, method)
        }
        (None, Some(url)) => {
            let (source, _live) = app.source_for(&url)?;
            (RequestSource::over(source), url, Method::HybEx)
        }
        (None, None) => return Err(ApiError::bad_request("give the key page's url or html")),
    };
    let method = req.method.unwrap_or(default_method);
    let config = within(template_config(&req, method)?, allowance);
    let r = extract_template(&source, &key_url, &config).map_err(|e| load_error(&key_url, e))?;
    let report = template_report(&r);
    let has = |i: Include| req.include.contains(&i);
    let content_config = ContentConfig::default();
    let content = (has(Include::Content) || has(Include::View)).then(|| r.content(&content_config));
    Ok(TemplateAnswer {
        annotated_html: has(Include::Annotated).then(|| annotated_html(&r.doc, &r.template)),
        template_html: has(Include::Template)
            .then(|| template_html(&r.doc, &r.template, &r.key_url)),
        view_html: has(Include::View).then(|| view(&r, &config, content.as_ref())),
        content: has(Include::Content).then(|| {
            let c = content.as_ref().expect("computed when content is included");
            let md_config = ContentConfig {
                drop_captions: false,
                ..ContentConfig::default()
            };
            ContentPart {
                metadata: c.metadata(),
                method: c.method(),
                text: c.text(),
                markdown: r.content(&md_config).markdown(),
                rest: {
                    let keep = r.rest_mask();
                    let body = r.doc.body().unwrap_or(templex::NodeId::ROOT);
                    templex::render::content_text(&r.doc, body, &|id| keep[id.index()])
                },
            }
        }),
        report,
    })
}

/// The inert view: template, content and the page-level segments (computed for the view
/// when the method did not produce them).
fn view(
    r: &TemplateResult,
    config: &TemplateConfig,
    content: Option<&templex::PageContent>,
) -> String {
    let detected;
    let segments = if r.segments.is_empty() {
        detected = templex::page_level::detect_page_level(
            &r.doc,
            Some(&r.key_url),
            config.model(),
            &config.pagelevel,
        );
        &detected.segments
    } else {
        &r.segments
    };
    let content_mask: Option<Vec<bool>> =
        content.map(|c| r.doc.ids().map(|id| c.is_content(id)).collect());
    view_html(
        &r.doc,
        ViewMarks {
            template: &r.template,
            content: content_mask.as_deref(),
            segments,
        },
        VIEW_CSP,
    )
}

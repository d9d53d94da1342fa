//! Tests of the live HTTP source against a tiny HTTP/1.1 server on loopback (no internet).

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{HttpFetcher, is_public_ip};
use crate::source::{HttpConfig, HttpSource, LoadStats};
use crate::{LoadError, PageSource};
use url::Url;

// ---------------------------------------------------------------------------------------
// Test server
// ---------------------------------------------------------------------------------------

/// Most connections one server accepts; keeps every server loop bounded.
const MAX_CONNECTIONS: usize = 64;
/// Longest a server lives, in case a test forgets to stop it.
const MAX_SERVER_LIFE: Duration = Duration::from_secs(30);
/// Most bytes an endless body sends before giving up.
const ENDLESS_CAP: usize = 256 * 1024 * 1024;

enum Body {
    Bytes(Vec<u8>),
    /// Streams data with no length until the client hangs up (or `ENDLESS_CAP`).
    Endless,
    /// Sends nothing for this long, then closes.
    Stall(Duration),
    /// Closes the connection without answering.
    Hangup,
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
}

fn reply(status: u16, content_type: Option<&str>, body: &[u8]) -> Reply {
    Reply {
        status,
        headers: content_type
            .map(|ct| vec![("Content-Type".to_string(), ct.to_string())])
            .unwrap_or_default(),
        body: Body::Bytes(body.to_vec()),
    }
}

fn html(body: &str) -> Reply {
    reply(200, Some("text/html"), body.as_bytes())
}

fn not_found() -> Reply {
    reply(404, Some("text/plain"), b"not found")
}

fn redirect(status: u16, location: &str) -> Reply {
    Reply {
        status,
        headers: vec![("Location".to_string(), location.to_string())],
        body: Body::Bytes(Vec::new()),
    }
}

type Route = dyn Fn(&str) -> Reply + Send + Sync;

struct TestServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    /// Bytes written by endless bodies.
    streamed: Arc<AtomicUsize>,
    /// Endless bodies that have stopped.
    endless_done: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    fn start(route: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind test server");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let addr = listener.local_addr().expect("local addr");
        let route: Arc<Route> = Arc::new(route);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let streamed = Arc::new(AtomicUsize::new(0));
        let endless_done = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (requests, streamed, endless_done, stop) = (
                requests.clone(),
                streamed.clone(),
                endless_done.clone(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                let born = Instant::now();
                let mut accepted = 0;
                while !stop.load(Ordering::Relaxed)
                    && accepted < MAX_CONNECTIONS
                    && born.elapsed() < MAX_SERVER_LIFE
                {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            accepted += 1;
                            let (route, requests, streamed, endless_done) = (
                                route.clone(),
                                requests.clone(),
                                streamed.clone(),
                                endless_done.clone(),
                            );
                            std::thread::spawn(move || {
                                serve(stream, &*route, &requests, &streamed, &endless_done)
                            });
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
            })
        };
        Self {
            addr,
            requests,
            streamed,
            endless_done,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://{}{path}", self.addr)).expect("test URL")
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("request log").clone()
    }

    fn count(&self, path: &str) -> usize {
        self.requests().iter().filter(|p| *p == path).count()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Serve one request on one connection, then close it.
fn serve(
    mut stream: TcpStream,
    route: &Route,
    requests: &Mutex<Vec<String>>,
    streamed: &AtomicUsize,
    endless_done: &AtomicUsize,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    requests.lock().expect("request log").push(path.clone());
    let reply = route(&path);
    if matches!(reply.body, Body::Hangup) {
        return;
    }
    let mut out = format!("HTTP/1.1 {} Test\r\nConnection: close\r\n", reply.status);
    for (name, value) in &reply.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    match reply.body {
        Body::Bytes(body) => {
            out.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
            let _ = stream.write_all(out.as_bytes());
            let _ = stream.write_all(&body);
        }
        Body::Endless => {
            out.push_str("\r\n");
            if stream.write_all(out.as_bytes()).is_ok() {
                let chunk = vec![b'x'; 64 * 1024];
                let mut sent = 0;
                while sent < ENDLESS_CAP && stream.write_all(&chunk).is_ok() {
                    sent += chunk.len();
                    streamed.fetch_add(chunk.len(), Ordering::Relaxed);
                }
            }
            endless_done.fetch_add(1, Ordering::Relaxed);
        }
        Body::Stall(pause) => std::thread::sleep(pause),
        Body::Hangup => {}
    }
    let _ = stream.flush();
}

/// Settings for talking to the loopback test server.
fn local_config() -> HttpConfig {
    HttpConfig {
        allow_private: true,
        min_delay: Duration::from_millis(10),
        connect_timeout: Duration::from_secs(2),
        timeout: Duration::from_secs(5),
        ..HttpConfig::default()
    }
}

fn source(config: HttpConfig) -> HttpSource {
    HttpSource::new(config).expect("HTTP source")
}

/// A site whose robots.txt is missing and whose other paths are small HTML pages.
fn open_site(path: &str) -> Reply {
    match path {
        "/robots.txt" => not_found(),
        _ => html(&format!("<p>{path}</p>")),
    }
}

// ---------------------------------------------------------------------------------------
// robots.txt
// ---------------------------------------------------------------------------------------

#[test]
fn robots_disallow_is_honoured() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => reply(
            200,
            Some("text/plain"),
            b"User-agent: *\nDisallow: /private\n",
        ),
        _ => html("<p>hello</p>"),
    });
    let source = source(local_config());

    let err = source.load(&server.url("/private/x")).unwrap_err();
    assert!(matches!(err, LoadError::RobotsDisallowed(_)), "{err:?}");
    let page = source.load(&server.url("/public")).expect("public page");
    assert_eq!(page.body, b"<p>hello</p>");

    assert_eq!(
        server.count("/private/x"),
        0,
        "disallowed page was requested"
    );
    assert_eq!(server.count("/robots.txt"), 1, "robots.txt is fetched once");
    assert_eq!(
        source.stats(),
        LoadStats {
            attempts: 2,
            loaded: 1
        }
    );
}

#[test]
fn robots_group_for_our_agent_is_used() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => reply(
            200,
            Some("text/plain"),
            b"User-agent: *\nDisallow:\n\nUser-agent: templex\nDisallow: /\n",
        ),
        _ => html("<p>hello</p>"),
    });
    let source = source(local_config());
    let err = source.load(&server.url("/anything")).unwrap_err();
    assert!(matches!(err, LoadError::RobotsDisallowed(_)), "{err:?}");
}

#[test]
fn robots_checked_on_every_redirect_hop() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => reply(
            200,
            Some("text/plain"),
            b"User-agent: *\nDisallow: /private\n",
        ),
        "/go" => redirect(302, "/private/secret"),
        _ => html("<p>hello</p>"),
    });
    let source = source(local_config());
    let err = source.load(&server.url("/go")).unwrap_err();
    assert!(
        matches!(err, LoadError::RobotsDisallowed(ref u) if u.ends_with("/private/secret")),
        "{err:?}"
    );
    assert_eq!(server.count("/private/secret"), 0);
}

#[test]
fn robots_server_error_disallows_everything() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => reply(503, Some("text/plain"), b"busy"),
        _ => html("<p>hello</p>"),
    });
    let source = source(local_config());
    let err = source.load(&server.url("/")).unwrap_err();
    assert!(matches!(err, LoadError::RobotsDisallowed(_)), "{err:?}");
    assert_eq!(server.requests(), vec!["/robots.txt".to_string()]);
}

#[test]
fn robots_missing_allows_everything() {
    let server = TestServer::start(open_site);
    let source = source(local_config());
    source.load(&server.url("/a")).expect("page");
    source.load(&server.url("/b")).expect("page");
    assert_eq!(server.count("/robots.txt"), 1);
}

#[test]
fn robots_crawl_delay_spaces_requests() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => reply(
            200,
            Some("text/plain"),
            b"User-agent: *\nCrawl-delay: 0.25\n",
        ),
        _ => html("<p>hello</p>"),
    });
    let source = source(local_config());
    let start = Instant::now();
    source.load(&server.url("/1")).expect("page");
    source.load(&server.url("/2")).expect("page");
    // robots.txt, then a pause before each page.
    assert!(
        start.elapsed() >= Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn absurd_crawl_delay_is_capped() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => reply(
            200,
            Some("text/plain"),
            b"User-agent: *\nCrawl-delay: 1e30\n",
        ),
        _ => html("<p>hello</p>"),
    });
    let source = source(HttpConfig {
        max_crawl_delay: Duration::from_millis(50),
        ..local_config()
    });
    let start = Instant::now();
    source.load(&server.url("/1")).expect("page");
    source.load(&server.url("/2")).expect("page");
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(100), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

// ---------------------------------------------------------------------------------------
// Redirects
// ---------------------------------------------------------------------------------------

#[test]
fn redirect_loop_is_stopped() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        "/a" => redirect(301, "/b"),
        "/b" => redirect(302, "/a"),
        _ => not_found(),
    });
    let source = source(local_config());
    let err = source.load(&server.url("/a")).unwrap_err();
    assert!(matches!(err, LoadError::TooManyRedirects(_)), "{err:?}");
    // The loop is noticed before /a is requested a second time.
    assert_eq!(server.count("/a"), 1);
    assert_eq!(server.count("/b"), 1);
}

#[test]
fn long_redirect_chain_is_stopped() {
    let server = TestServer::start(|path| {
        if path == "/robots.txt" {
            return not_found();
        }
        let n: u32 = path
            .strip_prefix("/r/")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        redirect(307, &format!("/r/{}", n + 1))
    });
    let source = source(HttpConfig {
        max_redirects: 3,
        ..local_config()
    });
    let err = source.load(&server.url("/r/0")).unwrap_err();
    assert!(matches!(err, LoadError::TooManyRedirects(_)), "{err:?}");
    let hops = server
        .requests()
        .iter()
        .filter(|p| p.starts_with("/r/"))
        .count();
    assert_eq!(hops, 4, "the start plus three redirects");
}

#[test]
fn redirect_chain_within_limit_is_followed() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        "/c/0" => redirect(301, "/c/1"),
        "/c/1" => redirect(303, "/c/2?x=1"),
        "/c/2?x=1" => redirect(302, "/c/3"),
        _ => html("<p>end</p>"),
    });
    let source = source(HttpConfig {
        max_redirects: 3,
        ..local_config()
    });
    let start = server.url("/c/0");
    let page = source.load(&start).expect("page after three redirects");
    assert_eq!(page.url, start);
    assert_eq!(page.final_url, server.url("/c/3"));
    assert_eq!(page.body, b"<p>end</p>");
}

#[test]
fn redirect_to_other_scheme_is_refused() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => redirect(302, "file:///etc/passwd"),
    });
    let source = source(local_config());
    let err = source.load(&server.url("/")).unwrap_err();
    assert!(
        matches!(err, LoadError::Unsupported(ref u) if u.starts_with("file:")),
        "{err:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Limits and errors
// ---------------------------------------------------------------------------------------

#[test]
fn oversize_body_is_cut() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: Body::Endless,
        },
    });
    let source = source(HttpConfig {
        max_body: 64 * 1024,
        ..local_config()
    });
    let started = Instant::now();
    let err = source.load(&server.url("/huge")).unwrap_err();
    assert!(
        matches!(err, LoadError::TooLarge { limit: 65536, .. }),
        "{err:?}"
    );
    // The server stops once the client hangs up, long before its cap.
    while server.endless_done.load(Ordering::Relaxed) == 0
        && started.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        server.endless_done.load(Ordering::Relaxed),
        1,
        "server still streaming"
    );
    let sent = server.streamed.load(Ordering::Relaxed);
    eprintln!("endless body: {sent} bytes sent before the client hung up");
    assert!(
        sent < 32 * 1024 * 1024,
        "client read far past the limit: {sent} bytes sent"
    );
}

#[test]
fn declared_oversize_body_is_refused() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => reply(200, Some("text/html"), &vec![b'x'; 200 * 1024]),
    });
    let source = source(HttpConfig {
        max_body: 64 * 1024,
        ..local_config()
    });
    let err = source.load(&server.url("/big")).unwrap_err();
    assert!(matches!(err, LoadError::TooLarge { .. }), "{err:?}");
}

#[test]
fn body_at_limit_is_accepted() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => reply(200, Some("text/html"), &[b'x'; 1000]),
    });
    let source = source(HttpConfig {
        max_body: 1000,
        ..local_config()
    });
    let page = source
        .load(&server.url("/exact"))
        .expect("page at the limit");
    assert_eq!(page.body.len(), 1000);
}

#[test]
fn slow_server_times_out() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => Reply {
            status: 200,
            headers: Vec::new(),
            body: Body::Stall(Duration::from_secs(3)),
        },
    });
    let source = source(HttpConfig {
        timeout: Duration::from_millis(300),
        ..local_config()
    });
    let started = Instant::now();
    let err = source.load(&server.url("/slow")).unwrap_err();
    assert!(matches!(err, LoadError::Timeout(_)), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn error_statuses_are_reported() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        "/gone" => not_found(),
        _ => reply(500, Some("text/html"), b"<p>oops</p>"),
    });
    let source = source(local_config());
    let err = source.load(&server.url("/gone")).unwrap_err();
    assert!(matches!(err, LoadError::NotFound(_)), "{err:?}");
    let err = source.load(&server.url("/broken")).unwrap_err();
    assert!(
        matches!(err, LoadError::Status { status: 500, .. }),
        "{err:?}"
    );
    assert_eq!(
        source.stats(),
        LoadStats {
            attempts: 2,
            loaded: 0
        }
    );
}

#[test]
fn unreachable_robots_disallows_origin() {
    // Bind and drop to find a port that nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let source = source(local_config());
    let url = Url::parse(&format!("http://127.0.0.1:{port}/")).expect("url");
    // robots.txt is unreachable, so RFC 9309 has the whole origin disallowed.
    let err = source.load(&url).unwrap_err();
    assert!(matches!(err, LoadError::RobotsDisallowed(_)), "{err:?}");
}

#[test]
fn dropped_connection_is_a_network_error() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => Reply {
            status: 200,
            headers: Vec::new(),
            body: Body::Hangup,
        },
    });
    let source = source(local_config());
    let err = source.load(&server.url("/")).unwrap_err();
    assert!(matches!(err, LoadError::Network { .. }), "{err:?}");
}

#[test]
fn unsupported_schemes_are_refused() {
    let source = source(HttpConfig::default());
    for url in [
        "ftp://example.com/",
        "file:///etc/passwd",
        "data:text/html,<p>x</p>",
    ] {
        let err = source.load(&Url::parse(url).expect("url")).unwrap_err();
        assert!(matches!(err, LoadError::Unsupported(_)), "{url}: {err:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Private addresses
// ---------------------------------------------------------------------------------------

#[test]
fn private_addresses_refused_by_default() {
    let server = TestServer::start(open_site);
    let port = server.addr.port();
    let source = source(HttpConfig::default());
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://[::1]:{port}/"),
        format!("http://0x7f000001:{port}/"),
        "http://10.1.2.3/".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "https://[fe80::1]/".to_string(),
        "http://[::ffff:192.168.0.1]/".to_string(),
    ] {
        let err = source.load(&Url::parse(&url).expect("url")).unwrap_err();
        assert!(
            matches!(err, LoadError::PrivateAddress { .. }),
            "{url}: {err:?}"
        );
    }
    assert!(
        server.requests().is_empty(),
        "requests reached the server: {:?}",
        server.requests()
    );
}

#[test]
fn ip_classifier_refuses_non_public_ranges() {
    let refused = [
        "0.0.0.0",
        "0.1.2.3",
        "10.0.0.1",
        "10.255.255.255",
        "100.64.0.1",
        "100.127.255.254",
        "127.0.0.1",
        "127.8.9.10",
        "169.254.169.254",
        "172.16.0.1",
        "172.31.255.255",
        "192.0.0.8",
        "192.0.2.1",
        "192.168.1.1",
        "198.18.0.1",
        "198.19.255.255",
        "198.51.100.7",
        "203.0.113.9",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "::127.0.0.1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.1.1",
        "64:ff9b::7f00:1",
        "64:ff9b:1::1",
        "100::1",
        "2001:db8::1",
        "2002:7f00:1::1",
        "2002:c0a8:101::1",
        "3fff::1",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "febf::1",
        "fec0::1",
        "ff02::1",
        "ff0e::1",
    ];
    for ip in refused {
        let addr: IpAddr = ip.parse().expect(ip);
        assert!(!is_public_ip(addr), "{ip} should be refused");
    }
}

#[test]
fn ip_classifier_accepts_public_addresses() {
    let public = [
        "1.1.1.1",
        "8.8.8.8",
        "9.255.255.255",
        "11.0.0.1",
        "93.184.215.14",
        "100.63.255.255",
        "100.128.0.1",
        "169.253.1.1",
        "172.15.255.255",
        "172.32.0.1",
        "192.0.1.1",
        "192.169.0.1",
        "198.17.1.1",
        "198.20.0.1",
        "223.255.255.254",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2001:4860:4860::8888",
        "2606:4700:4700::1111",
        "2002:808:808::1",
        "2a00:1450:4001::200e",
        "3ffe::1",
    ];
    for ip in public {
        let addr: IpAddr = ip.parse().expect(ip);
        assert!(is_public_ip(addr), "{ip} should be public");
    }
    assert!(is_public_ip(IpAddr::V4(Ipv4Addr::new(151, 101, 1, 69))));
    assert!(!is_public_ip(IpAddr::V6(Ipv6Addr::LOCALHOST)));
}

// ---------------------------------------------------------------------------------------
// Content, politeness, API
// ---------------------------------------------------------------------------------------

#[test]
fn non_html_is_rejected() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        "/image" => reply(200, Some("image/png"), b"\x89PNG"),
        _ => reply(200, Some("application/json; charset=utf-8"), b"{}"),
    });
    let source = source(local_config());
    let err = source.load(&server.url("/image")).unwrap_err();
    assert!(
        matches!(err, LoadError::NotHtml { ref content_type, .. } if content_type == "image/png"),
        "{err:?}"
    );
    let err = source.load(&server.url("/data")).unwrap_err();
    assert!(matches!(err, LoadError::NotHtml { .. }), "{err:?}");
}

#[test]
fn missing_content_type_is_accepted() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => reply(200, None, b"<p>untyped</p>"),
    });
    let source = source(local_config());
    let page = source.load(&server.url("/")).expect("untyped page");
    assert_eq!(page.content_type, None);
    assert_eq!(page.charset, None);
    assert_eq!(page.body, b"<p>untyped</p>");
}

#[test]
fn charset_from_content_type_is_propagated() {
    let server = TestServer::start(|path| match path {
        "/robots.txt" => not_found(),
        _ => reply(
            200,
            Some("Text/HTML; Charset=\"ISO-8859-1\""),
            b"<p>caf\xe9</p>",
        ),
    });
    let source = source(local_config());
    let url = server.url("/latin1");
    let page = source.load(&url).expect("page");
    assert_eq!(page.url, url);
    assert_eq!(page.final_url, url);
    assert_eq!(page.charset.as_deref(), Some("ISO-8859-1"));
    assert_eq!(page.content_type.as_deref(), Some("text/html"));
    assert_eq!(page.body, b"<p>caf\xe9</p>");
}

#[test]
fn per_host_delay_is_respected() {
    let server = TestServer::start(open_site);
    let delay = Duration::from_millis(200);
    let source = source(HttpConfig {
        min_delay: delay,
        ..local_config()
    });
    let start = Instant::now();
    source.load(&server.url("/one")).expect("page");
    source.load(&server.url("/two")).expect("page");
    // robots.txt, pause, /one, pause, /two.
    assert!(start.elapsed() >= 2 * delay, "{:?}", start.elapsed());
    assert_eq!(server.requests(), vec!["/robots.txt", "/one", "/two"]);
}

#[test]
fn concurrent_loads_to_one_host_are_serialised() {
    let server = TestServer::start(open_site);
    let delay = Duration::from_millis(100);
    let source = source(HttpConfig {
        min_delay: delay,
        ..local_config()
    });
    let start = Instant::now();
    std::thread::scope(|scope| {
        for i in 0..3 {
            let (source, server) = (&source, &server);
            scope.spawn(move || source.load(&server.url(&format!("/{i}"))).expect("page"));
        }
    });
    // robots.txt plus three pages, each after a pause.
    assert!(start.elapsed() >= 3 * delay, "{:?}", start.elapsed());
    assert_eq!(
        source.stats(),
        LoadStats {
            attempts: 3,
            loaded: 3
        }
    );
}

#[test]
fn fetcher_runs_in_caller_runtime_and_source_survives_async_use() {
    let server = TestServer::start(open_site);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let fetcher = HttpFetcher::new(local_config()).expect("fetcher");
        let page = fetcher.fetch(&server.url("/async")).await.expect("page");
        assert_eq!(page.body, b"<p>/async</p>");

        // The blocking source must neither panic when used nor when dropped in async code.
        let source = source(local_config());
        let page = source.load(&server.url("/blocking")).expect("page");
        assert_eq!(page.body, b"<p>/blocking</p>");
        drop(source);
    });
}

#[test]
fn config_defaults() {
    let config = HttpConfig::default();
    assert!(config.user_agent.starts_with("templex/"));
    assert_eq!(config.robots_agent(), "templex");
    assert_eq!(config.min_delay, Duration::from_secs(1));
    assert_eq!(config.max_crawl_delay, Duration::from_secs(30));
    assert_eq!(config.connect_timeout, Duration::from_secs(10));
    assert_eq!(config.timeout, Duration::from_secs(30));
    assert_eq!(config.max_body, 10 * 1024 * 1024);
    assert_eq!(config.max_redirects, 10);
    assert!(!config.allow_private);
    let custom = HttpConfig {
        user_agent: "MyBot/2.0 (+https://example.org)".into(),
        ..HttpConfig::default()
    };
    assert_eq!(custom.robots_agent(), "MyBot");
}

#[test]
fn invalid_user_agent_is_a_setup_error() {
    let result = HttpSource::new(HttpConfig {
        user_agent: "bad\nagent".into(),
        ..HttpConfig::default()
    });
    assert!(result.is_err());
}

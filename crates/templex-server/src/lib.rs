#![warn(missing_docs, unreachable_pub)]
//! # templex-server
//!
//! `templex serve`: the library behind an HTTP API and a web page that shows a page's
//! template. A thin layer: every answer comes from [`templex::extract_page`],
//! [`templex::extract_template`] and its outputs ([`templex::render::template_report`],
//! [`templex::render::annotated_html`]), as the CLI's do.
//!
//! - [`ServerConfig`] names the sites (mirror directories, WARC files), whether live URLs may
//!   be fetched, and the limits; [`App::new`] opens them once.
//! - [`App::router`] is the axum router (API under `/v1`, `/metrics`, the viewer at `/`);
//!   [`serve`] runs it until a shutdown signal, finishing the requests in flight.
//!
//! Work runs on blocking threads, at most [`Limits::workers`] at a time, with at most
//! [`Limits::queue`] more waiting: beyond that a request is answered 503 with `Retry-After`
//! at once instead of piling up. Each request has a time limit (504), a body limit (413), and
//! every failure is a JSON error with its status; a panic in the engine is a 500 for that
//! request only.

mod api;
mod config;
mod error;
mod metrics;
mod sites;
mod ui;
mod work;

pub use config::{Limits, ServerConfig, SiteConfig};
pub use error::StartError;
pub use sites::App;

/// Serve `app` on `listener` until `shutdown` completes; requests in flight are finished.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: std::sync::Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app.router())
        .with_graceful_shutdown(shutdown)
        .await
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down: finishing the requests in flight");
}
#[cfg(test)]
mod tests;

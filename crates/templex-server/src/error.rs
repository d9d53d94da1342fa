//! Errors: JSON bodies with the status a client can act on.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A mirror directory or WARC file could not be opened.
    #[error("cannot open {what} {path}: {reason}")]
    Source {
        /// "site mirror" or "WARC".
        what: &'static str,
        /// Its path.
        path: String,
        /// Why.
        reason: String,
    },
    /// The HTTP client for live fetching could not be set up.
    #[error("cannot set up the HTTP client: {0}")]
    Http(String),
}

/// An API error: status, a stable code, a message for people.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

#[derive(Serialize)]
struct Body<'a> {
    error: &'a str,
    code: &'a str,
    status: u16,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    pub(crate) fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("the request body is larger than the server's limit of {limit} bytes"),
        )
    }
    pub(crate) fn not_html(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "not_html", message)
    }
    pub(crate) fn overloaded() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            "the server is at its concurrency limit; retry later",
        )
    }
    pub(crate) fn timeout(secs: f64) -> Self {
        Self::new(
            StatusCode::GATEWAY_TIMEOUT,
            "timeout",
            format!("the request took longer than the server's limit of {secs} s"),
        )
    }
    pub(crate) fn bad_gateway(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_GATEWAY, "fetch_failed", message)
    }
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&Body {
            error: &self.message,
            code: self.code,
            status: self.status.as_u16(),
        })
        .unwrap_or_default();
        let mut r = (self.status, body).into_response();
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            h.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        r
    }
}

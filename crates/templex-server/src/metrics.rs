//! Prometheus metrics: requests by endpoint and status, latency, pages loaded, rejections.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RequestLabels {
    pub(crate) endpoint: String,
    pub(crate) status: u16,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct EndpointLabels {
    pub(crate) endpoint: String,
}

type LatencyFamily = Family<EndpointLabels, Histogram, fn() -> Histogram>;

/// The server's metrics and their registry.
pub(crate) struct Metrics {
    registry: Registry,
    pub(crate) requests: Family<RequestLabels, Counter>,
    pub(crate) latency: LatencyFamily,
    pub(crate) pages_loaded: Counter,
    pub(crate) rejected: Counter,
    pub(crate) timeouts: Counter,
    pub(crate) in_flight: Gauge<i64, std::sync::atomic::AtomicI64>,
    /// Bytes of request bodies accepted.
    pub(crate) body_bytes: Counter<u64, AtomicU64>,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to ~16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("templex");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency: LatencyFamily = Family::new_with_constructor(latency_histogram);
        let pages_loaded = Counter::default();
        let rejected = Counter::default();
        let timeouts = Counter::default();
        let in_flight = Gauge::default();
        let body_bytes = Counter::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by endpoint and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer a request, by endpoint",
            latency.clone(),
        );
        registry.register(
            "pages_loaded",
            "Pages loaded for template and site-aware content requests (key pages included)",
            pages_loaded.clone(),
        );
        registry.register(
            "rejected",
            "Requests answered 503 because the workers and the queue were full",
            rejected.clone(),
        );
        registry.register(
            "timeouts",
            "Requests answered 504 because they took longer than the time limit",
            timeouts.clone(),
        );
        registry.register(
            "in_flight",
            "Requests admitted and not yet answered (working or queued)",
            in_flight.clone(),
        );
        registry.register(
            "request_body_bytes",
            "Bytes of request bodies read",
            body_bytes.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            pages_loaded,
            rejected,
            timeouts,
            in_flight,
            body_bytes,
        }
    }

    /// The Prometheus text exposition.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

//! Running the engine for a request: admitted or refused at once, queued for a worker, on a
//! blocking thread, within the time limit.

use std::sync::Arc;
use std::time::{Duration, Instant};

use templex::Budget;

use crate::error::ApiError;
use crate::sites::App;

/// What a request's work may spend once it has a worker: the page budget with its time
/// capped at what is left of the request's time limit, and that time for the sibling search.
/// The engine stops at the page budget's time in every stage, so a request answered 504
/// frees its worker then, rather than when its page is done.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Allowance {
    /// The page budget, its time at most what is left of the request's.
    pub(crate) budget: Budget,
    /// What is left of the request's time limit.
    pub(crate) left: Duration,
}

impl Allowance {
    fn new(budget: Budget, left: Duration) -> Self {
        Allowance {
            budget: Budget {
                max_time: budget.max_time.min(left),
                ..budget
            },
            left,
        }
    }
}

/// Run `job` on a blocking thread once a worker is free, with what is left of the request's
/// time as its [`Allowance`].
///
/// Refused with 503 when the workers and the queue are full. The admission and the worker
/// are held by the job itself, so a job that outlives its request's time limit (504) still
/// counts against capacity until it ends: a flood of slow pages cannot start unbounded work.
pub(crate) async fn run<T, F>(app: &Arc<App>, job: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(Allowance) -> Result<T, ApiError> + Send + 'static,
{
    let started = Instant::now();
    let Ok(admitted) = app.admission.clone().try_acquire_owned() else {
        app.metrics.rejected.inc();
        return Err(ApiError::overloaded());
    };
    let limit = app.limits.timeout;
    let budget = app.limits.budget;
    let workers = app.workers.clone();
    let work = async move {
        let worker = workers
            .acquire_owned()
            .await
            .map_err(|_| ApiError::internal("the server is shutting down"))?;
        let handle = tokio::task::spawn_blocking(move || {
            let _held = (admitted, worker);
            job(Allowance::new(
                budget,
                limit.saturating_sub(started.elapsed()),
            ))
        });
        match handle.await {
            Ok(r) => r,
            Err(e) if e.is_panic() => {
                tracing::error!("a request's work panicked: {e}");
                Err(ApiError::internal(
                    "the engine failed on this input (a bug: please report it with the page)",
                ))
            }
            Err(e) => Err(ApiError::internal(format!("the work was cancelled: {e}"))),
        }
    };
    match tokio::time::timeout(limit, work).await {
        Ok(r) => r,
        Err(_) => {
            app.metrics.timeouts.inc();
            Err(ApiError::timeout(limit.as_secs_f64()))
        }
    }
}

//! The page's time budget as every stage sees it: the entry points that run a page under a
//! [`Budget`](super::Budget) open a [`Scope`] with its deadline, and the long loops of every
//! stage ask [`due`] as they go and stop early once the deadline has passed. What a cut loop
//! leaves is never shown: the entry point asks [`Scope::passed`] when the page is done and
//! gives [`PageError::TimedOut`](super::PageError::TimedOut) instead of the result.
//!
//! Before, the budget was checked while parsing and once the page was done, so a page that
//! parsed in time could run a stage for seconds past it (a dense 10 MB page: 2.6 s under a
//! 1 s budget). The deadline lives in a thread-local, as tokio's cooperative budget does, so
//! that it need not be threaded through every stage's signature: one page's work runs on one
//! thread, and a scope opened inside another keeps the earlier deadline.

use std::cell::Cell;
use std::time::Instant;

/// How often a loop reads the clock: every this many steps (a power of two). Reading it
/// costs ~25 ns; a step of the engine's loops costs 20–200 ns, so this is well under 1 %,
/// and a loop overruns the deadline by at most this many steps.
const EVERY: usize = if cfg!(test) { 1 << 4 } else { 1 << 12 };

#[derive(Clone, Copy)]
struct State {
    /// When the page's time is up (`None`: no deadline on this thread).
    at: Option<Instant>,
    /// When the whole call's time is up: a [`pause`] does not lift it (`None`: no call
    /// deadline). `at` is never later than it.
    call: Option<Instant>,
    /// The deadline was found passed: every later check says so without the clock.
    passed: bool,
    /// Tests: the deadline passes after this many more clock reads, whatever the clock says.
    #[cfg(test)]
    reads_left: Option<u64>,
}

impl State {
    const NONE: State = State {
        at: None,
        call: None,
        passed: false,
        #[cfg(test)]
        reads_left: None,
    };
}

thread_local! {
    static STATE: Cell<State> = const { Cell::new(State::NONE) };
}

/// The deadline of the page being worked on, until dropped (then the one before it).
#[must_use = "the deadline holds only while the scope lives"]
pub(crate) struct Scope {
    before: State,
}

/// Work on this thread stops at `at` (`None`: no deadline of its own), or at the deadline of
/// an enclosing scope if that is earlier.
pub(crate) fn scope(at: Option<Instant>) -> Scope {
    let before = STATE.get();
    STATE.set(State {
        at: earlier(before.at, at),
        ..before
    });
    Scope { before }
}

/// Like [`scope`], for a whole call that works on several pages (a key page and its
/// siblings): work on this thread stops at `at` even inside a [`pause`].
pub(crate) fn call_scope(at: Option<Instant>) -> Scope {
    let before = STATE.get();
    STATE.set(State {
        at: earlier(before.at, at),
        call: earlier(before.call, at),
        ..before
    });
    Scope { before }
}

/// The earlier of two deadlines (`None`: never).
fn earlier(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl Scope {
    /// Whether the deadline has passed: then some loop may have stopped early, and what the
    /// page's stages gave must not be used.
    pub(crate) fn passed(&self) -> bool {
        passed()
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        // An inner deadline that passed does not make the outer one pass.
        STATE.set(restored(self.before));
    }
}

/// `before`, with the tests' count of clock reads as it is now (it runs across scopes).
fn restored(before: State) -> State {
    #[cfg(test)]
    let before = State {
        reads_left: STATE.get().reads_left,
        ..before
    };
    before
}

/// While it lives, the page's clock stops: work on other pages (loading and mapping a key
/// page's siblings, each within its own budget) does not count against the page's time.
/// The call's deadline ([`call_scope`]) still holds.
#[must_use = "the clock stops only while the pause lives"]
pub(crate) struct Pause {
    before: State,
    since: Instant,
}

/// Stop the current page's clock until the pause is dropped; then its deadline moves later
/// by the pause's length (unless it had passed already), but not past the call's.
pub(crate) fn pause() -> Pause {
    let before = STATE.get();
    STATE.set(restored(State {
        at: before.call,
        call: before.call,
        ..State::NONE
    }));
    Pause {
        before,
        since: Instant::now(),
    }
}

impl Drop for Pause {
    fn drop(&mut self) {
        let mut s = restored(self.before);
        if !s.passed {
            let moved = s.at.and_then(|at| at.checked_add(self.since.elapsed()));
            s.at = earlier(moved, s.call);
        }
        STATE.set(s);
    }
}

/// Whether the current deadline has passed (reads the clock unless it was found passed
/// already; `false` without a deadline).
pub(crate) fn passed() -> bool {
    let mut s = STATE.get();
    if s.passed {
        return true;
    }
    #[cfg(test)]
    if let Some(left) = s.reads_left {
        s.passed = left == 0;
        s.reads_left = Some(left.saturating_sub(1));
        STATE.set(s);
        return s.passed;
    }
    let Some(at) = s.at else { return false };
    if Instant::now() > at {
        s.passed = true;
        STATE.set(s);
        return true;
    }
    false
}

/// Whether a loop at its `step`-th step should stop: the deadline has passed (the clock is
/// read every few thousand steps, and at step 0, so a loop started after the deadline stops
/// at once).
#[inline]
pub(crate) fn due(step: usize) -> bool {
    step % EVERY == 0 && passed()
}

/// Tests: a scope whose deadline passes at the `reads`-th clock read from now, so that a
/// test can stop the page at every point where a loop checks.
#[cfg(test)]
pub(crate) fn scope_after_reads(reads: u64) -> CountedScope {
    let before = STATE.get();
    STATE.set(State {
        reads_left: Some(reads),
        ..State::NONE
    });
    CountedScope { before }
}

/// Tests: [`scope_after_reads`]'s scope; its end ends the count too.
#[cfg(test)]
pub(crate) struct CountedScope {
    before: State,
}

#[cfg(test)]
impl CountedScope {
    /// Whether the count ran out.
    pub(crate) fn passed(&self) -> bool {
        passed()
    }
}

#[cfg(test)]
impl Drop for CountedScope {
    fn drop(&mut self) {
        STATE.set(self.before);
    }
}

/// Tests: how many clock reads a run of `f` makes under a deadline that never passes.
#[cfg(test)]
pub(crate) fn reads_of(f: impl FnOnce()) -> u64 {
    const MANY: u64 = u64::MAX / 2;
    let scope = scope_after_reads(MANY);
    f();
    let left = STATE.get().reads_left.unwrap_or(MANY);
    drop(scope);
    MANY - left
}

#[cfg(test)]
/// `run` under a deadline that passes at each of a spread of its clock reads (all of the first
/// few, then about `samples` more spread over the rest), and once never: every stopped run
/// must be `timed_out`, the unstopped one `ok`.
pub(crate) fn sweep<T>(
    run: impl Fn() -> T,
    timed_out: impl Fn(&T) -> bool,
    ok: impl Fn(&T) -> bool,
) {
    let reads = reads_of(|| {
        let _ = run();
    });
    assert!(reads > 50, "the run checks the deadline only {reads} times");
    let samples = 40;
    let mut cuts: Vec<u64> = (0..8).collect();
    cuts.extend((0..samples).map(|i| 8 + i * (reads - 8) / samples));
    cuts.push(reads - 1);
    for k in cuts {
        let scope = scope_after_reads(k);
        let r = run();
        drop(scope);
        assert!(
            timed_out(&r),
            "stopped at read {k} of {reads}: not a timeout"
        );
    }
    let scope = scope_after_reads(reads);
    assert!(ok(&run()), "not stopped ({reads} reads) yet not ok");
    drop(scope);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn no_deadline_never_passes() {
        assert!(!passed());
        assert!(!due(0));
    }

    #[test]
    fn a_passed_deadline_is_seen_at_step_zero_and_sticks() {
        let s = scope(Some(Instant::now() - Duration::from_millis(1)));
        assert!(!due(1), "steps between clock reads do not read it");
        assert!(due(0));
        assert!(s.passed());
        drop(s);
        assert!(!passed(), "the scope's end restores no deadline");
    }

    #[test]
    fn the_earlier_deadline_holds_and_an_inner_pass_stays_inside() {
        let soon = Instant::now() + Duration::from_secs(3600);
        let outer = scope(Some(soon));
        {
            let inner = scope(Some(Instant::now() - Duration::from_millis(1)));
            assert!(inner.passed());
        }
        assert!(!outer.passed());
        let late = scope(Some(soon + Duration::from_secs(3600)));
        assert_eq!(STATE.get().at, Some(soon));
        drop(late);
    }

    #[test]
    fn a_pause_stops_the_clock_and_moves_the_deadline() {
        let at = Instant::now() + Duration::from_millis(30);
        let s = scope(Some(at));
        {
            let _p = pause();
            assert!(!passed());
            let inner = scope(Some(Instant::now() - Duration::from_millis(1)));
            assert!(inner.passed(), "work inside the pause has its own deadline");
            drop(inner);
            std::thread::sleep(Duration::from_millis(40));
        }
        assert!(!s.passed(), "the pause does not count");
        assert!(
            STATE
                .get()
                .at
                .is_some_and(|moved| moved >= at + Duration::from_millis(40))
        );
    }

    #[test]
    fn the_call_deadline_holds_inside_a_pause_and_caps_the_moved_one() {
        let call_at = Instant::now() + Duration::from_millis(60);
        let call = call_scope(Some(call_at));
        let page = scope(Some(Instant::now() + Duration::from_millis(40)));
        {
            let _p = pause();
            assert_eq!(
                STATE.get().at,
                Some(call_at),
                "the pause keeps the call's deadline"
            );
            let sibling = scope(Some(Instant::now() + Duration::from_secs(3600)));
            assert_eq!(
                STATE.get().at,
                Some(call_at),
                "a sibling's own budget is later"
            );
            drop(sibling);
            std::thread::sleep(Duration::from_millis(30));
        }
        assert_eq!(
            STATE.get().at,
            Some(call_at),
            "the page's deadline moved by the pause, but not past the call's"
        );
        {
            let _p = pause();
            std::thread::sleep(Duration::from_millis(40));
            assert!(passed(), "the call's deadline passes inside a pause");
        }
        assert!(page.passed() && call.passed());
        drop(page);
        drop(call);
        assert!(!passed(), "the call's end restores no deadline");
    }

    #[test]
    fn reads_are_counted_and_the_test_deadline_passes_at_its_read() {
        assert_eq!(
            reads_of(|| for i in 0..3 * EVERY {
                let _ = due(i);
            }),
            3
        );
        let s = scope_after_reads(2);
        assert!(!passed());
        assert!(!passed());
        assert!(passed());
        assert!(s.passed());
    }
}

//! The allocator of templex's binaries: the CLI and the Python extension link this crate,
//! which makes mimalloc their global allocator, and call [`keep_freed_memory`] as they start.
//! The library itself leaves the allocator to its embedder.
//!
//! The parser allocates a string or vector per token and tree node, and batch runs free
//! pages on other threads than the ones that built them: mimalloc does both faster than the
//! system allocator (BENCHMARKS.md, "The allocator: mimalloc, freed memory kept" and "Python package, in process"). It is built without
//! transparent huge pages (`no_thp`): asking the kernel for them made it compact memory in
//! page faults, which cost batch runs 0.3–1 s of system time at random. In the Python
//! extension it serves the extension's own allocations only; Python's objects keep Python's
//! allocator.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its position in `mi_option_e`, mimalloc.h of the v3 that
/// `libmimalloc-sys` builds): how long freed memory waits before it goes back to the kernel.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory is kept, in milliseconds, unless `MIMALLOC_PURGE_DELAY` says
/// otherwise. A dense page frees and allocates hundreds of megabytes of per-node arrays
/// between its stages; given back after mimalloc's default second, the kernel faults it in
/// again, zeroed: HybEx on 10 MB of unclosed `<div>`s took 4.0 s against 2.8 s kept, and a
/// batch run over all mirrors 3.77–4.25 s against 3.71–4.05 s (BENCHMARKS.md, "The
/// allocator: mimalloc, freed memory kept").
/// After ten idle seconds a server still gives it back.
pub const PURGE_DELAY_MS: std::ffi::c_long = 10_000;

/// Keep freed memory [`PURGE_DELAY_MS`] before giving it back to the kernel, unless the
/// environment sets `MIMALLOC_PURGE_DELAY`. Call it first thing, before the process starts
/// threads that allocate with this crate's allocator.
pub fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: `mi_option_set` writes one entry of mimalloc's option table, which
        // mimalloc reads on use; callers call this before they start threads of their own.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

/// mimalloc's current `purge_delay`, in milliseconds.
pub fn purge_delay_ms() -> std::ffi::c_long {
    // SAFETY: reads one entry of mimalloc's option table.
    unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_memory_is_kept_unless_the_environment_says() {
        keep_freed_memory();
        let delay = purge_delay_ms();
        match std::env::var("MIMALLOC_PURGE_DELAY") {
            Ok(v) => assert_eq!(delay.to_string(), v.trim()),
            Err(_) => {
                assert_eq!(delay, PURGE_DELAY_MS);
                // Once more in a child with the variable set: mimalloc reads it into the
                // entry we write only if that entry is `purge_delay`.
                let child =
                    std::process::Command::new(std::env::current_exe().expect("test binary"))
                        .args([
                            "--exact",
                            "tests::freed_memory_is_kept_unless_the_environment_says",
                        ])
                        .env("MIMALLOC_PURGE_DELAY", "1234")
                        .output()
                        .expect("the test binary runs");
                let out = String::from_utf8_lossy(&child.stdout);
                assert!(child.status.success() && out.contains("1 passed"), "{out}");
            }
        }
    }
}

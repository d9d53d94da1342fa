//! `templex`: the command-line face of the templex library.
//!
//! Every subcommand is a thin layer: parse arguments, open a page source, call the library,
//! print. Errors are one line on stderr and a non-zero exit code.

mod batch_cmd;
mod content_cmd;
mod dedup_cmd;
mod eval_cmd;
mod input;
mod links_cmd;
#[cfg(feature = "serve")]
mod serve_cmd;
mod template_cmd;
mod train_cmd;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// The parser allocates a string or vector per token and tree node, and batch runs free pages
/// on other threads than the ones that built them: mimalloc does both faster than the
/// system allocator (BENCHMARKS.md, "Batch mode"). Built without transparent huge pages
/// (`no_thp`): asking the kernel for them made it compact memory in page faults, which cost
/// batch runs 0.3–1 s of system time at random.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its position in `mi_option_e`, mimalloc.h of the v3 that
/// `libmimalloc-sys` builds): how long freed memory waits before it goes back to the kernel.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory is kept, in milliseconds, unless `MIMALLOC_PURGE_DELAY` says
/// otherwise. A dense page frees and allocates hundreds of megabytes of per-node arrays
/// between its stages; given back after mimalloc's default second, the kernel faults it in
/// again, zeroed: HybEx on 10 MB of unclosed `<div>`s took 4.0 s against 2.8 s kept, and a
/// batch run over all mirrors 3.77–4.25 s against 3.71–4.05 s (BENCHMARKS.md, "the
/// allocator").
/// After ten idle seconds a server still gives it back.
const PURGE_DELAY_MS: std::ffi::c_long = 10_000;

fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: `mi_option_set` writes one entry of mimalloc's option table, which
        // mimalloc reads on use; `main` calls this before it starts any other thread.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

/// Separate web pages' templates (menus, sidebars, footers) from their content.
#[derive(Debug, Parser)]
#[command(name = "templex", version, about, long_about = None)]
struct Cli {
    /// More log output on stderr (-v: info, -vv: debug, -vvv: trace). TEMPLEX_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List a page's same-site links with their resolved URL, whether they load, and DOM path.
    Links(links_cmd::LinksArgs),
    /// Extract the main content of pages (page-level, or site-aware with --site).
    Content(content_cmd::ContentArgs),
    /// Extract a key page's template by mapping it against sibling pages of its site.
    Template(template_cmd::TemplateArgs),
    /// Score the site-level method on a template gold standard (one row per key page, or
    /// one row per setting with --sweep).
    Eval(eval_cmd::EvalArgs),
    /// Train the page-level templateness classifier from SITELEVEL labels of site mirrors.
    Train(train_cmd::TrainArgs),
    /// Crawl-scale run: learn templates once per site and template, extract the content of
    /// every page (WARC files, mirrors, files in; JSON lines out; resumable).
    Batch(batch_cmd::BatchArgs),
    /// Inspect and prune the template store that batch runs fill.
    Store(batch_cmd::StoreArgs),
    /// Cluster near-duplicate content: records of `batch` or `content --format jsonl`, or
    /// pages extracted as `batch` does (MinHash LSH over word shingles, exact content hashes).
    Dedup(dedup_cmd::DedupArgs),
    /// Write site mirrors into a WARC file (for tests and benchmarks).
    Warc(batch_cmd::WarcArgs),
    /// Serve the HTTP API (content, template, metrics) and the viewer that shows a page's
    /// template.
    #[cfg(feature = "serve")]
    Serve(serve_cmd::ServeArgs),
}

fn main() -> ExitCode {
    keep_freed_memory();
    // A bug must still end in one clear line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("templex: internal error: {msg}{at} (please report this)");
    }));
    // The matches too: `serve` pairs each --url-prefix with the --site before it by position.
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    init_logging(cli.verbose);
    let result = match cli.command {
        Command::Links(args) => links_cmd::run(args),
        Command::Template(args) => template_cmd::run(args),
        Command::Content(args) => content_cmd::run(args),
        Command::Eval(args) => eval_cmd::run(args),
        Command::Train(args) => train_cmd::run(args),
        Command::Batch(args) => batch_cmd::run(args),
        Command::Store(args) => batch_cmd::run_store(args),
        Command::Warc(args) => batch_cmd::run_warc(args),
        Command::Dedup(args) => dedup_cmd::run(args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve_cmd::run(
            args,
            matches
                .subcommand_matches("serve")
                .expect("the serve subcommand was parsed"),
        ),
    };
    match result {
        Ok(code) => code,
        // The reader went away (`templex content dir/ | head`): what it wanted it has, as
        // ripgrep and the coreutils see it.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("templex: error: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    // html5ever reports its own parse-recovery gaps as warnings; they are not the user's.
    let default = match verbose {
        0 => "warn,html5ever=error",
        1 => "info,html5ever=error",
        2 => "debug,html5ever=warn",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_env("TEMPLEX_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .try_init();
}

/// Whether writing the output failed because its reader closed the pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes on one line.
fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string().replace('\n', " ");
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_memory_is_kept_unless_the_environment_says() {
        keep_freed_memory();
        // SAFETY: reads one entry of mimalloc's option table.
        let delay = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
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

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
    // mimalloc, keeping freed memory a while (templex-alloc).
    templex_alloc::keep_freed_memory();
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
///
/// serde_json's errors hide the `io::Error` they wrap (their `source()` skips it), so a JSON
/// writer's closed pipe is only seen through `io_error_kind`.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}

/// Write to stdout and flush: `print!` would panic where the reader closed the pipe, this
/// returns the error, which `main` ends quietly.
pub(crate) fn print_stdout(args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)?;
    out.flush()
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

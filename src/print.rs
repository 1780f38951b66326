//! Standard output that a reader may leave early, and whose failure is never hidden.
//!
//! `coordsim check … | head -1` closes the pipe after one line. A closed stdout ends the
//! printing, never the work or the verdict: every write after it is dropped, every config is
//! still run and written, and the exit code is the one the run earned (1 for a failed
//! claim). Rust ignores SIGPIPE, so a write to a closed pipe is an `EPIPE` error; this
//! writer turns that into silence.
//!
//! Any other failure (`> /dev/full`, a full disk, an I/O error) means what was printed is
//! incomplete, so it must not pass for success: printing stops, the work goes on as for a
//! closed pipe, and [`finish`] (called once, after the command) reports it, so the command
//! ends with `error: cannot write to stdout …` and exit 2. The state is the process's, not a
//! writer's: every [`Stdout`] of a command shares it, and [`finish`] flushes what the last
//! one left buffered.

use std::io::{self, Write};
use std::sync::Mutex;

/// What has happened to stdout so far in this process.
#[derive(Default)]
struct State {
    /// The reader went away (EPIPE): nothing more is written, and that is no error.
    closed: bool,
    /// The first failure that was not a closed pipe.
    failed: Option<String>,
}

static STATE: Mutex<State> = Mutex::new(State {
    closed: false,
    failed: None,
});

/// Stdout, locked, whose writes never fail the caller: see the module docs.
pub(crate) struct Stdout {
    inner: io::StdoutLock<'static>,
}

/// The process's stdout as a [`Stdout`].
pub(crate) fn stdout() -> Stdout {
    Stdout {
        inner: io::stdout().lock(),
    }
}

/// Whether printing has stopped (a closed pipe or a failure).
fn stopped() -> bool {
    STATE
        .lock()
        .map_or(true, |s| s.closed || s.failed.is_some())
}

/// Records the outcome of one write or flush of stdout.
fn record(result: io::Result<()>) {
    let Err(e) = result else { return };
    if let Ok(mut s) = STATE.lock() {
        if e.kind() == io::ErrorKind::BrokenPipe {
            s.closed = true;
        } else if s.failed.is_none() {
            s.failed = Some(e.to_string());
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !stopped() {
            record(self.inner.write_all(buf));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !stopped() {
            record(self.inner.flush());
        }
        Ok(())
    }
}

/// Flushes stdout and says whether everything printed reached it: `Err` with a sentence for
/// `error: …` when a write failed for any reason but a closed pipe.
pub(crate) fn finish() -> Result<(), String> {
    if !stopped() {
        record(io::stdout().lock().flush());
    }
    let failed = STATE.lock().ok().and_then(|s| s.failed.clone());
    match failed {
        Some(e) => Err(format!(
            "cannot write to stdout ({e}): what this command printed is incomplete"
        )),
        None => Ok(()),
    }
}

/// Writes what clap prints on stdout (`--help`, `--version`), through the
/// same bookkeeping as [`Stdout`], so [`finish`] reports a failure of it too.
pub(crate) fn clap_output(e: &clap::Error) {
    record(e.print());
}

//! Standard output that a reader may leave early.
//!
//! `coordsim check … | head -1` closes the pipe after one line. A closed stdout ends the
//! printing, never the work or the verdict: every write after it is dropped, every config is
//! still run and written, and the exit code is the one the run earned (1 for a failed
//! claim). Rust ignores SIGPIPE, so a write to a closed pipe is an `EPIPE` error; this
//! writer turns that (and any other failure of stdout, said once on stderr) into silence.

use std::io::{self, Write};

/// Stdout, locked, that never fails: see the module docs.
pub struct Stdout {
    inner: io::StdoutLock<'static>,
    closed: bool,
}

/// The process's stdout as a [`Stdout`].
pub fn stdout() -> Stdout {
    Stdout {
        inner: io::stdout().lock(),
        closed: false,
    }
}

impl Stdout {
    fn close(&mut self, e: &io::Error) {
        if !self.closed && e.kind() != io::ErrorKind::BrokenPipe {
            let _ = writeln!(
                io::stderr(),
                "warning: cannot write to stdout ({e}); printing stopped, the work goes on"
            );
        }
        self.closed = true;
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.closed
            && let Err(e) = self.inner.write_all(buf)
        {
            self.close(&e);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.closed
            && let Err(e) = self.inner.flush()
        {
            self.close(&e);
        }
        Ok(())
    }
}

/// Prints a config's warnings (`warning: FILE:LINE:COL: …`) on stderr; a closed stderr
/// stops the messages, not the run.
pub fn warnings(config: &crate::config::Config) {
    let mut stderr = std::io::stderr().lock();
    for w in crate::labels::warnings(config) {
        let _ = writeln!(stderr, "warning: {w}");
    }
}

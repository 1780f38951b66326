//! Writing a file whole or not at all, under an unpredictable temporary name.

use std::path::Path;

/// Writes `bytes` to `path` whole or not at all: into a new file of an unpredictable name
/// beside it, created exclusively (`O_EXCL`: a file or a planted link of that name makes it
/// fail, so nothing outside is ever followed or overwritten), then renamed over `path` (a
/// rename replaces a link at `path` itself, never its target). The temporary file never
/// survives an error.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let tmp = temp_path(path);
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.flush()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(anyhow::Error::new(e).context(format!("cannot write {}", path.display())));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
    })
}

/// A hidden sibling of `path` with an unpredictable name (`.NAME.RANDOM.partial`).
pub(crate) fn temp_path(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.partial", random_tag()))
}

/// 64 bits nobody can predict: std's randomly keyed hasher over the process and a counter.
pub(crate) fn random_tag() -> String {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let h = std::hash::RandomState::new().hash_one((std::process::id(), n));
    format!("{h:016x}")
}

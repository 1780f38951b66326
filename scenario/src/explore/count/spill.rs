//! The spill store: an append-only file in a folder the front end gives (the output's
//! staging folder), where the counting's cold pages go once memory is short, written
//! whole and read back by their offset.
//!
//! The file is made only when the first page spills (an exploration that fits in memory
//! touches no disk), and on Unix its name is unlinked as soon as it is open: nothing of it
//! is left on disk once the exploration ends, however it ends (an error, a panic, a kill),
//! and removing the folder meanwhile takes nothing from the pages written.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Spill files made by this process so far: each one's name is its own.
static MADE: AtomicU64 = AtomicU64::new(0);

/// Why a page could not spill: the exploration's verdict says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SpillError {
    /// The pages spilled would pass the disk limit (`--max-spill`).
    Full,
    /// The file could not be made or written (the message names the file).
    Io(String),
}

/// An append-only file of pages, at most `max_bytes` long.
#[derive(Debug)]
pub(crate) struct SpillFile {
    folder: PathBuf,
    /// Made at the first page, with its name (kept only where an open file cannot lose
    /// its name: removed at the store's end).
    file: Option<(File, PathBuf)>,
    written: u64,
    max_bytes: u64,
}

impl SpillFile {
    /// A store in `folder` of at most `max_bytes` (nothing made yet).
    pub(crate) fn new(folder: &Path, max_bytes: u64) -> SpillFile {
        SpillFile {
            folder: folder.to_path_buf(),
            file: None,
            written: 0,
            max_bytes,
        }
    }

    /// The bytes written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// `page` appended whole: its offset.
    pub(crate) fn append(&mut self, page: &[u8]) -> Result<u64, SpillError> {
        if self.written.saturating_add(page.len() as u64) > self.max_bytes {
            return Err(SpillError::Full);
        }
        let offset = self.written;
        let file = self.open()?;
        write_all_at(file, page, offset).map_err(|e| {
            SpillError::Io(format!(
                "{}: {e}",
                self.folder.join("coordsim-spill").display()
            ))
        })?;
        self.written += page.len() as u64;
        Ok(offset)
    }

    /// The bytes at `offset` read into `into` (written before by [`SpillFile::append`]).
    pub(crate) fn read(&self, offset: u64, into: &mut [u8]) -> std::io::Result<()> {
        match &self.file {
            Some((file, _)) => read_exact_at(file, into, offset),
            None => Err(std::io::Error::other("nothing was spilled")),
        }
    }

    /// The file, made (and its name unlinked, on Unix) at the first call.
    fn open(&mut self) -> Result<&File, SpillError> {
        if self.file.is_none() {
            let name = format!(
                "coordsim-spill-{}-{}",
                std::process::id(),
                MADE.fetch_add(1, Ordering::Relaxed)
            );
            let path = self.folder.join(name);
            let file = File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| SpillError::Io(format!("{}: {e}", path.display())))?;
            // The open file keeps its pages; the name goes at once (on Windows, at the
            // store's end: see `Drop`).
            #[cfg(unix)]
            let _ = std::fs::remove_file(&path);
            self.file = Some((file, path));
        }
        self.file
            .as_ref()
            .map(|(file, _)| file)
            .ok_or_else(|| SpillError::Io("the spill file was not made".into()))
    }
}

#[cfg(not(unix))]
impl Drop for SpillFile {
    fn drop(&mut self) {
        // Its own file, closed first (no unlinking while open here); no other store's.
        if let Some((file, path)) = self.file.take() {
            drop(file);
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(unix)]
fn read_exact_at(file: &File, into: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, into, offset)
}

#[cfg(windows)]
fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(file, bytes, offset)?;
        bytes = &bytes[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut into: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !into.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(file, into, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        into = &mut into[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages written whole are read back by offset, in any order; past the limit a page is
    /// refused (nothing written); nothing is left in the folder, even while the store is
    /// open (Unix); a folder removed before the first page is an error naming it.
    #[test]
    fn pages_are_read_back_by_offset_within_the_limit() {
        let folder =
            std::env::temp_dir().join(format!("coordsim-spill-test-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a temporary folder");
        let mut store = SpillFile::new(&folder, 30);
        let a = store.append(&[1; 10]).expect("first page");
        let b = store
            .append(&[2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
            .expect("second");
        assert_eq!((a, b, store.written()), (0, 10, 20));
        // 20 + 11 > 30: refused, the written bytes unchanged.
        assert_eq!(store.append(&[0; 11]), Err(SpillError::Full));
        assert_eq!(store.written(), 20);
        let mut back = [0u8; 4];
        store.read(b + 2, &mut back).expect("read back");
        assert_eq!(back, [4, 5, 6, 7]);
        store.read(a, &mut back).expect("read back");
        assert_eq!(back, [1; 4]);
        // Reading past what was written fails, it does not make bytes up.
        assert!(store.read(18, &mut back).is_err());
        #[cfg(unix)]
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
        drop(store);
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
        std::fs::remove_dir(&folder).expect("the folder empty");

        let gone = folder.join("gone");
        let mut store = SpillFile::new(&gone, 100);
        match store.append(&[1]) {
            Err(SpillError::Io(message)) => assert!(message.contains("gone"), "{message}"),
            other => panic!("a missing folder spilled: {other:?}"),
        }
        assert!(!gone.exists());
    }
}

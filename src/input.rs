//! Reading the user's files: regular files only, and never more than a hard cap of bytes.
//!
//! A size from the file's metadata is not a bound: `/dev/zero` reports 0 bytes and never
//! ends, and opening a FIFO for reading blocks until some writer comes. So a path must name
//! a regular file (checked before it is opened, and again on the open file), and reading
//! stops one byte past the cap.

use std::io::Read;
use std::path::Path;

/// The bytes of the regular file at `path`, or what is wrong with it (a sentence naming the
/// path): not found, not a regular file, or more than `cap` bytes.
pub(crate) fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "{shown} has more than {cap} bytes, the limit for this kind of file"
        ));
    }
    Ok(bytes)
}

/// The regular file at `path`, opened for reading, or what is wrong with it (a sentence
/// naming the path): not found, or not a regular file (checked before it is opened, and
/// again on the open file).
pub(crate) fn open_regular(path: &Path) -> Result<std::fs::File, String> {
    let shown = path.display();
    let not_regular = || {
        format!(
            "{shown} is not a regular file (a folder, a device or a pipe): coordsim reads its inputs from ordinary files"
        )
    };
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    // Replaced between the check and the open: check the file that was opened.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(not_regular());
    }
    Ok(file)
}

/// [`read_capped`], as UTF-8 text.
pub(crate) fn read_text_capped(path: &Path, cap: u64) -> Result<String, String> {
    let bytes = read_capped(path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{} is not UTF-8 text (byte {} is not valid)",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_whole_up_to_its_cap_and_refused_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.toml");
        std::fs::write(&path, "0123456789").unwrap();
        // 10 bytes: a cap of 10 reads them, a cap of 9 refuses.
        assert_eq!(read_capped(&path, 10).unwrap(), b"0123456789");
        let e = read_capped(&path, 9).unwrap_err();
        assert!(e.contains("more than 9 bytes"), "{e}");
    }

    #[test]
    fn devices_pipes_and_folders_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        // /dev/zero never ends; its metadata says 0 bytes.
        let e = read_capped(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let e = read_capped(dir.path(), 1 << 20).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        // A FIFO: opening it would block until a writer came; it is refused before.
        let fifo = dir.path().join("fifo.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let e = read_capped(&fifo, 1 << 20).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let e = read_text_capped(&dir.path().join("none"), 1).unwrap_err();
        assert!(e.starts_with("cannot read"), "{e}");
    }
}

//! A lesson's images: copied into the site for its pages (each once, only from inside the
//! lessons' folder), read for its fragment, which holds them as `data:` URLs.

use std::path::{Path, PathBuf};

use super::frame::unique_name;
use super::words::{Words, say};

/// Most bytes of one image a lesson page copies into the site.
pub(crate) const MAX_IMAGE_BYTES: u64 = 32 << 20;

/// The image kinds a lesson page copies.
const IMAGE_EXTENSIONS: &[&str] = &["svg", "png", "jpg", "jpeg", "gif", "webp"];

/// The images the lesson pages show, each copied once.
pub(super) struct Images {
    /// The lessons' folder, canonical: only images inside it are copied.
    root: Option<PathBuf>,
    /// (canonical source, file name in the site, bytes).
    copied: Vec<(PathBuf, String, Vec<u8>)>,
}

impl Images {
    /// None copied yet, from the lessons' folder `dir`.
    pub(super) fn new(dir: &Path) -> Images {
        Images {
            root: std::fs::canonicalize(dir).ok(),
            copied: Vec::new(),
        }
    }

    /// The copies: (file name in the site, bytes).
    pub(super) fn into_files(self) -> Vec<(String, Vec<u8>)> {
        (self.copied.into_iter())
            .map(|(_, name, bytes)| (name, bytes))
            .collect()
    }

    /// Copies the image at `path` into the site once; its file name there, or why not (in
    /// the page's words).
    pub(super) fn copy(
        &mut self,
        path: &Path,
        used: &mut Vec<String>,
        lc: Words<'_>,
    ) -> Result<String, String> {
        let canonical =
            std::fs::canonicalize(path).map_err(|_| say(lc, "no such file").to_string())?;
        if let Some((_, name, _)) = self.copied.iter().find(|(p, _, _)| *p == canonical) {
            return Ok(name.clone());
        }
        let (rel, ext, bytes) = self.read(path, lc)?;
        let base = rel.with_extension("").to_string_lossy().replace('/', "--");
        let name = unique_name("lessons-", &base, &format!(".{ext}"), used);
        self.copied.push((canonical, name.clone(), bytes));
        Ok(name)
    }

    /// The image at `path`, inside the lessons' folder: its path there, its extension
    /// (lower case) and its bytes; or why not (in the page's words).
    pub(super) fn read(
        &self,
        path: &Path,
        lc: Words<'_>,
    ) -> Result<(PathBuf, String, Vec<u8>), String> {
        let canonical =
            std::fs::canonicalize(path).map_err(|_| say(lc, "no such file").to_string())?;
        let Some(root) = &self.root else {
            return Err(say(lc, "the lessons' folder cannot be read").into());
        };
        let Ok(rel) = canonical.strip_prefix(root) else {
            return Err(say(
                lc,
                "outside the lessons' folder, so not copied into the site",
            )
            .into());
        };
        let ext = canonical
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .filter(|e| IMAGE_EXTENSIONS.contains(&e.as_str()))
            .ok_or_else(|| {
                say(lc, "not an image ({extensions})")
                    .replace("{extensions}", &IMAGE_EXTENSIONS.join(", "))
            })?;
        let bytes = crate::input::read_capped(&canonical, MAX_IMAGE_BYTES)
            .map_err(|e| say(lc, "cannot be read: {error}").replace("{error}", &e))?;
        Ok((rel.to_path_buf(), ext, bytes))
    }
}

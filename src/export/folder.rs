//! A config's output folder, replaced whole: built under a hidden name, then swapped in.
//!
//! `OUT/stem/` is written as `OUT/.stem.RANDOM.partial/` and renamed into place when every
//! file is in it, so files a config no longer writes disappear with the old folder, and an
//! interrupted run leaves the previous folder (or the new one), never a mix. The swap is two
//! renames (the old folder aside, the new one in); a kill between them leaves the old folder
//! aside, and the next run into `OUT` puts it back before anything else. Runs into one `OUT`
//! take turns: each holds an advisory lock on the folder itself (released by the system if
//! the process dies), so no lock file is left behind.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Whether `stem` may name an output folder: not empty, not `.` or `..`, no path separator,
/// no leading dot (hidden names are the staging folders'), no control character.
pub fn check_stem(stem: &str) -> Result<(), String> {
    let bad = stem.is_empty()
        || stem.starts_with('.')
        || stem.contains(['/', '\\'])
        || stem.chars().any(char::is_control);
    if bad {
        Err(format!(
            "the output folder would be named {stem:?}: a config's file name (without .toml) must be a plain name, not empty, not starting with `.`, without `/`, `\\` or control characters"
        ))
    } else {
        Ok(())
    }
}

/// An output folder being built.
pub struct Staging {
    out: PathBuf,
    stem: String,
    tmp: PathBuf,
    committed: bool,
    _lock: File,
}

fn hidden(stem: &str, kind: &str) -> String {
    format!(".{stem}.{}.{kind}", super::random_tag())
}

impl Staging {
    /// Starts building `out/stem` (waiting for any other run writing into `out`).
    pub fn begin(out: &Path, stem: &str) -> anyhow::Result<Staging> {
        check_stem(stem).map_err(anyhow::Error::msg)?;
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        let lock = File::open(out).with_context(|| format!("cannot open {}", out.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "waiting for another coordsim that writes into {}…",
                    out.display()
                );
                lock.lock()
                    .with_context(|| format!("cannot lock {} for writing", out.display()))?;
            }
            // A file system without locks (some cluster mounts): the swap still keeps each
            // folder whole; only two runs into one folder at once are not serialized.
            Err(std::fs::TryLockError::Error(_)) => {}
        }
        recover(out, stem)?;
        let tmp = out.join(hidden(stem, "partial"));
        std::fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        Ok(Staging {
            out: out.to_path_buf(),
            stem: stem.to_string(),
            tmp,
            committed: false,
            _lock: lock,
        })
    }

    /// Where the files go until [`Staging::commit`].
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Puts the new folder in the old one's place.
    pub fn commit(mut self) -> anyhow::Result<PathBuf> {
        let target = self.out.join(&self.stem);
        let old = self.out.join(hidden(&self.stem, "old"));
        let had_old = match std::fs::symlink_metadata(&target) {
            // Only an output folder (or an empty one) is replaced: a folder of the user's
            // that happens to have the name is never removed.
            Ok(m) if m.is_dir() && !replaceable(&target) => bail!(
                "{} exists and is not a coordsim output folder (it has no results.csv): move it away, or write elsewhere with --out",
                target.display()
            ),
            Ok(m) if m.is_dir() => {
                std::fs::rename(&target, &old)
                    .with_context(|| format!("cannot move {} aside", target.display()))?;
                true
            }
            Ok(_) => bail!(
                "{} is not a folder: move it away, coordsim writes a folder there",
                target.display()
            ),
            Err(_) => false,
        };
        std::fs::rename(&self.tmp, &target)
            .with_context(|| format!("cannot put {} in place", target.display()))?;
        self.committed = true;
        if had_old {
            std::fs::remove_dir_all(&old)
                .with_context(|| format!("cannot remove {}", old.display()))?;
        }
        Ok(target)
    }
}

/// Whether `dir` may be replaced by a new output: it is empty, or holds a `results.csv`.
fn replaceable(dir: &Path) -> bool {
    dir.join("results.csv").is_file()
        || std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none())
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// After a run was killed: the previous folder put back if it was moved aside and not
/// replaced, and every leftover staging folder of `stem` removed (the lock is held).
fn recover(out: &Path, stem: &str) -> anyhow::Result<()> {
    let prefix = format!(".{stem}.");
    let mut olds = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        if rest.ends_with(".partial") {
            let _ = std::fs::remove_dir_all(entry.path());
        } else if rest.ends_with(".old") {
            olds.push(entry.path());
        }
    }
    let target = out.join(stem);
    for (i, old) in olds.into_iter().enumerate() {
        if i == 0 && std::fs::symlink_metadata(&target).is_err() {
            std::fs::rename(&old, &target)
                .with_context(|| format!("cannot restore {}", target.display()))?;
        } else {
            let _ = std::fs::remove_dir_all(&old);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_that_would_leave_the_folder_are_refused() {
        for bad in ["", ".", "..", ".hidden", "a/b", "a\\b", "a\u{7}b"] {
            assert!(check_stem(bad).is_err(), "{bad:?}");
        }
        for good in ["shared-store", "mg1_study", "ders-003"] {
            assert!(check_stem(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn a_commit_replaces_the_folder_and_an_abandoned_build_leaves_the_old_one() {
        let out = tempfile::tempdir().unwrap();
        let s = Staging::begin(out.path(), "c").unwrap();
        std::fs::write(s.path().join("old.txt"), "1").unwrap();
        std::fs::write(s.path().join("results.csv"), "x").unwrap();
        s.commit().unwrap();
        // A new build without old.txt: after the commit only new.txt is there.
        let s = Staging::begin(out.path(), "c").unwrap();
        std::fs::write(s.path().join("new.txt"), "2").unwrap();
        s.commit().unwrap();
        let names: Vec<String> = std::fs::read_dir(out.path().join("c"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["new.txt"]);
        // A build dropped half-way (an error) leaves the committed folder and no trace.
        {
            let s = Staging::begin(out.path(), "c").unwrap();
            std::fs::write(s.path().join("half.txt"), "3").unwrap();
        }
        let all: Vec<String> = std::fs::read_dir(out.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(all, ["c"]);
        // A folder of the user's with the output's name is never replaced.
        std::fs::create_dir(out.path().join("mine")).unwrap();
        std::fs::write(out.path().join("mine/notes.txt"), "keep").unwrap();
        let s = Staging::begin(out.path(), "mine").unwrap();
        let e = s.commit().unwrap_err().to_string();
        assert!(e.contains("is not a coordsim output folder"), "{e}");
        assert_eq!(
            std::fs::read_to_string(out.path().join("mine/notes.txt")).unwrap(),
            "keep"
        );
    }

    #[test]
    fn a_kill_between_the_renames_is_undone_by_the_next_run() {
        let out = tempfile::tempdir().unwrap();
        // The state a kill after "move aside" leaves: no folder, the old one aside.
        std::fs::create_dir(out.path().join(".c.0123.old")).unwrap();
        std::fs::write(out.path().join(".c.0123.old/results.csv"), "x").unwrap();
        std::fs::create_dir(out.path().join(".c.4567.partial")).unwrap();
        let s = Staging::begin(out.path(), "c").unwrap();
        assert_eq!(
            std::fs::read_to_string(out.path().join("c/results.csv")).unwrap(),
            "x"
        );
        assert!(!out.path().join(".c.4567.partial").exists());
        drop(s);
    }
}

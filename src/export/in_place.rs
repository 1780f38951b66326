//! A folder replaced whole from within itself: what `merge OUT` writes. Nothing is written
//! outside `OUT` (no staging folder beside it, no lock on the folder it is in).
//!
//! The new contents are built in `OUT/.merge.TAG.partial/` while the previous ones stay as
//! they were: a kill or an error then leaves the previous folder whole, and the build is
//! removed (by the run itself, or by the next coordsim to write into `OUT`). To swap, a
//! journal, `OUT/.coordsim-merge.TAG`, names the old entries (those `OUT`'s marker lists,
//! and the marker) and the new ones; then each old entry is moved into
//! `OUT/.merge.TAG.old/`, each new one out of the build into `OUT`, what was set aside is
//! removed, and the journal last. Every step looks before it moves, so a swap killed
//! anywhere is completed, from its journal, by the next `merge` into `OUT` (once it holds
//! the folder's lock): `OUT` is then the old folder or the new one, never a mix.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::folder::{
    Existing, MARKER, Writer, exists, inspect, is_file, is_real_dir, is_tag, lock, read_marker,
    seal, step,
};

/// The journal's name before its tag.
const JOURNAL: &str = ".coordsim-merge.";

/// The journal's first line: what proves it is coordsim's.
const JOURNAL_HEAD: &str = "coordsim merge: this folder's entries below are being replaced; the next coordsim to write into it completes the swap.";

/// The build's and the set-aside folder's names.
fn build(out: &Path, tag: &str) -> PathBuf {
    out.join(format!(".merge.{tag}.partial"))
}

fn aside(out: &Path, tag: &str) -> PathBuf {
    out.join(format!(".merge.{tag}.old"))
}

/// A folder being rebuilt in place.
pub(crate) struct InPlace {
    out: PathBuf,
    tag: String,
    /// `out` did not exist before: removed again, when empty, if nothing is committed.
    made: bool,
    committed: bool,
    _lock: File,
}

impl InPlace {
    /// Starts rebuilding `out` (creating it; waiting for any other coordsim writing into
    /// it, and completing a swap a killed one left). Refuses at once when `out` holds
    /// something coordsim may not replace.
    pub(crate) fn begin(out: &Path) -> anyhow::Result<InPlace> {
        let made = !exists(out);
        let lock = lock(out)?;
        recover(out)?;
        let tag = super::random_tag();
        let building = InPlace {
            out: out.to_path_buf(),
            tag,
            made,
            committed: false,
            _lock: lock,
        };
        if let Existing::Foreign(why) = inspect(out) {
            bail!("{why}");
        }
        let tmp = building.path();
        std::fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        super::write_atomic(
            &tmp.join(MARKER),
            super::folder::marker_text(&[], Writer::Run).as_bytes(),
        )?;
        Ok(building)
    }

    /// Where the files go until [`InPlace::commit`].
    pub(crate) fn path(&self) -> PathBuf {
        build(&self.out, &self.tag)
    }

    /// Puts the new contents in the old ones' place, the marker listing every file. After
    /// Ctrl-C nothing is swapped: the previous folder stays as it was.
    pub(crate) fn commit(self) -> anyhow::Result<PathBuf> {
        let tmp = self.path();
        seal(&tmp, Writer::Run)?;
        if crate::interrupt::stop_requested() {
            return Err(anyhow::Error::new(crate::interrupt::Interrupted));
        }
        let mut old = read_marker(&self.out.join(MARKER)).unwrap_or_default();
        // Checked at the start too: something the marker does not list appeared during the
        // run (the build aside).
        let build_name = format!(".merge.{}.partial", self.tag);
        for entry in std::fs::read_dir(&self.out)
            .with_context(|| format!("cannot read {}", self.out.display()))?
        {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name != MARKER && name != build_name && !old.contains(&name) {
                bail!(
                    "{} holds {name:?}, which coordsim did not write: coordsim replaces its output folders whole, so move that file away first",
                    self.out.display()
                );
            }
        }
        old.push(MARKER.to_string());
        let mut new = read_marker(&tmp.join(MARKER)).unwrap_or_default();
        new.push(MARKER.to_string());
        self.swap_in(&old, &new, usize::MAX)
    }

    /// Writes the journal, then swaps; stops dead after `steps` changes once the journal
    /// is written, as a kill would (tests).
    fn swap_in(
        mut self,
        old: &[String],
        new: &[String],
        mut steps: usize,
    ) -> anyhow::Result<PathBuf> {
        write_journal(&self.out, &self.tag, old, new)?;
        self.committed = true;
        swap(&self.out, &self.tag, old, new, &mut steps)?;
        Ok(self.out.clone())
    }
}

impl Drop for InPlace {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        let _ = std::fs::remove_dir_all(self.path());
        if self.made {
            // Only an empty folder: it was made by this run and holds nothing.
            let _ = std::fs::remove_dir(&self.out);
        }
    }
}

fn write_journal(out: &Path, tag: &str, old: &[String], new: &[String]) -> anyhow::Result<()> {
    let mut text = format!("{JOURNAL_HEAD}\n");
    for name in old {
        text.push_str(&format!("old {name}\n"));
    }
    for name in new {
        text.push_str(&format!("new {name}\n"));
    }
    super::write_atomic(&out.join(format!("{JOURNAL}{tag}")), text.as_bytes())
}

/// The old and the new entries a journal names, or `None` when it is not one of
/// coordsim's (its first line, every entry a plain name in `out`).
fn read_journal(path: &Path) -> Option<(Vec<String>, Vec<String>)> {
    if !is_file(path) {
        return None;
    }
    let text = String::from_utf8(crate::input::read_capped(path, 1 << 20).ok()?).ok()?;
    let mut lines = text.lines();
    if lines.next()? != JOURNAL_HEAD {
        return None;
    }
    let (mut old, mut new) = (Vec::new(), Vec::new());
    for line in lines {
        let (which, name) = line.split_once(' ')?;
        if name != MARKER {
            super::folder::check_stem(name).ok()?;
        }
        match which {
            "old" => old.push(name.to_string()),
            "new" => new.push(name.to_string()),
            _ => return None,
        }
    }
    Some((old, new))
}

/// The swap `tag` of `out`: every old entry set aside, every new one in, then what was set
/// aside, the build and the journal removed. Each step looks first, so a swap stopped
/// anywhere and run again from its journal ends as one run through would; `steps` stops it
/// dead after that many changes, as a kill would (tests).
fn swap(
    out: &Path,
    tag: &str,
    old: &[String],
    new: &[String],
    steps: &mut usize,
) -> anyhow::Result<()> {
    let (tmp, set_aside) = (build(out, tag), aside(out, tag));
    if !exists(&set_aside) {
        if !step(steps) {
            return Ok(());
        }
        std::fs::create_dir(&set_aside)
            .with_context(|| format!("cannot create {}", set_aside.display()))?;
    }
    for name in old {
        let (from, to) = (out.join(name), set_aside.join(name));
        // Set aside unless it is already the new one (moved in after a kill).
        let moved_in = exists(&from) && !exists(&tmp.join(name)) && new.contains(name);
        if exists(&from) && !exists(&to) && !moved_in {
            if !step(steps) {
                return Ok(());
            }
            std::fs::rename(&from, &to)
                .with_context(|| format!("cannot move {} aside", from.display()))?;
        }
    }
    for name in new {
        let (from, to) = (tmp.join(name), out.join(name));
        if exists(&from) && !exists(&to) {
            if !step(steps) {
                return Ok(());
            }
            std::fs::rename(&from, &to)
                .with_context(|| format!("cannot put {} in place", to.display()))?;
        }
    }
    for dir in [&set_aside, &tmp] {
        if is_real_dir(dir) {
            if !step(steps) {
                return Ok(());
            }
            std::fs::remove_dir_all(dir)
                .with_context(|| format!("cannot remove {}", dir.display()))?;
        }
    }
    if !step(steps) {
        return Ok(());
    }
    let journal = out.join(format!("{JOURNAL}{tag}"));
    std::fs::remove_file(&journal).with_context(|| format!("cannot remove {}", journal.display()))
}

/// Completes every swap a killed `merge` left in `out` (its lock held), then removes the
/// builds a killed merge left without a journal (they never replaced anything). What only
/// has the name of one is left alone, with a warning.
fn recover(out: &Path) -> anyhow::Result<()> {
    let mut journaled = Vec::new();
    let mut leftovers = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        super::folder::remove_half_journal(&entry.path(), &name, JOURNAL);
        if let Some(tag) = name.strip_prefix(JOURNAL).filter(|t| is_tag(t)) {
            journaled.push((tag.to_string(), entry.path()));
        } else if let Some(tag) = name
            .strip_prefix(".merge.")
            .and_then(|r| {
                r.strip_suffix(".partial")
                    .or_else(|| r.strip_suffix(".old"))
            })
            .filter(|t| is_tag(t))
        {
            leftovers.push((tag.to_string(), entry.path()));
        }
    }
    journaled.sort();
    for (tag, path) in &journaled {
        let Some((old, new)) = read_journal(path) else {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "warning: left {} alone: it has the name of a coordsim merge journal but is not one",
                path.display()
            );
            continue;
        };
        let mut steps = usize::MAX;
        swap(out, tag, &old, &new, &mut steps).with_context(|| {
            format!(
                "cannot complete the swap a killed `coordsim merge` left in {}",
                out.display()
            )
        })?;
    }
    for (tag, path) in leftovers {
        if journaled.iter().any(|(t, _)| *t == tag) || !is_real_dir(&path) {
            continue;
        }
        // A build is marked from its start; a set-aside folder without a journal was made
        // just before it and holds nothing.
        let ours = read_marker(&path.join(MARKER)).is_some()
            || std::fs::read_dir(&path).is_ok_and(|mut e| e.next().is_none());
        if ours {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Every file under `dir` with its bytes, hidden entries of `dir` itself included.
    fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        super::super::folder::files_under(dir, true)
    }

    /// Generation `g` of a merged folder: `a.csv` and `trace-1/` always, `only-g.csv` of
    /// this generation alone, each naming `g`; built, not yet swapped in.
    fn generation(out: &Path, g: &str) -> InPlace {
        let building = InPlace::begin(out).unwrap();
        let dir = building.path();
        std::fs::write(dir.join("a.csv"), format!("a of {g}")).unwrap();
        std::fs::write(dir.join(format!("only-{g}.csv")), g).unwrap();
        std::fs::create_dir(dir.join("trace-1")).unwrap();
        std::fs::write(dir.join("trace-1/t.svg"), format!("trace of {g}")).unwrap();
        building
    }

    /// Builds generation `g` into `out` and swaps it in, stopping dead (as a kill would)
    /// after `steps` changes once its journal is written.
    fn commit_killed(out: &Path, g: &str, steps: usize) {
        let building = generation(out, g);
        let tmp = building.path();
        seal(&tmp, Writer::Run).unwrap();
        let mut old = read_marker(&out.join(MARKER)).unwrap_or_default();
        old.push(MARKER.to_string());
        let mut new = read_marker(&tmp.join(MARKER)).unwrap();
        new.push(MARKER.to_string());
        building.swap_in(&old, &new, steps).unwrap();
    }

    #[test]
    fn a_swap_killed_at_any_step_is_completed_by_the_next_writer() {
        let reference = tempfile::tempdir().unwrap();
        let out = reference.path().join("m");
        generation(&out, "old").commit().unwrap();
        let old = snapshot(&out);
        generation(&out, "new").commit().unwrap();
        let new = snapshot(&out);
        assert!(
            new.keys()
                .all(|f| !f.contains("old") && !f.starts_with(".merge")),
            "{new:?}"
        );
        assert!(old != new);
        let mut killed = 0;
        for steps in 0.. {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("m");
            generation(&out, "old").commit().unwrap();
            commit_killed(&out, "new", steps);
            let done = snapshot(&out) == new;
            // The next coordsim into the folder (here a merge that gives up) finishes it.
            drop(InPlace::begin(&out).unwrap());
            assert_eq!(snapshot(&out), new, "killed after {steps} steps");
            assert_eq!(snapshot(dir.path()).len(), new.len(), "nothing beside m");
            if done {
                break;
            }
            killed += 1;
        }
        // The set-aside folder made, 4 old entries aside (a.csv, only-old.csv, trace-1, the
        // marker), 4 new ones in, two folders removed, then the journal: 12 moments.
        assert_eq!(killed, 1 + 4 + 4 + 2 + 1);
        // Killed before the journal (the build stays, hidden): the old generation whole,
        // and the next writer removes the build.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("m");
        generation(&out, "old").commit().unwrap();
        let mut building = generation(&out, "new");
        building.committed = true; // as a kill: nothing removed
        drop(building);
        // Killed while its journal was written, too: its temporary file goes as well.
        let half = out.join(format!(
            ".{JOURNAL}0123456789abcdef.fedcba9876543210.partial"
        ));
        std::fs::write(&half, "coordsim mer").unwrap();
        drop(InPlace::begin(&out).unwrap());
        assert_eq!(snapshot(&out), old);
    }

    #[test]
    fn a_folder_it_did_not_write_is_refused_and_a_new_one_removed_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("m");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        let e = InPlace::begin(&out).err().unwrap().to_string();
        assert!(e.contains("not a coordsim output folder"), "{e}");
        assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
        // A merge into a new folder that fails (dropped uncommitted) leaves no folder.
        let fresh = dir.path().join("n");
        drop(generation(&fresh, "old"));
        assert!(!fresh.exists());
    }
}

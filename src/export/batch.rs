//! Several entries of one output folder replaced as one unit: what `report` writes.
//!
//! A report is its config folders, `README.md`, the site (`site/` and `index.html`) and the
//! removal of folders whose config is gone. The pages show the config folders' charts, so a
//! report replaced entry by entry could be killed half-way and leave old pages beside new
//! charts. A [`Batch`] builds every entry first under a hidden name, `.NAME.TAG.partial`
//! (one TAG per batch), while the previous report stays as it was: a kill then leaves the old
//! report whole, and the next run drops the builds. To swap, it writes a journal,
//! `.coordsim-swap.TAG`, naming every entry, then renames each old entry aside
//! (`.NAME.TAG.old`) and the new one in. A kill during those renames leaves the journal, and
//! the next coordsim to write into the folder (any command, once it holds the folder's lock)
//! finishes the swap from it before anything else: so once anything runs there again, the
//! folder is the old report or the new one, never a mix. The old entries are removed last,
//! then the journal.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::folder::{
    Entry, Existing, Kind, Writer, begin_folder, check_stem, inspect, is_file, is_tag, lock, seal,
    swap, swap_path, write_journal,
};

/// Entries of one output folder being built, to be swapped in together by [`Batch::commit`].
pub(crate) struct Batch {
    out: PathBuf,
    tag: String,
    entries: Vec<Entry>,
    /// Set once the journal is written: from then on the builds are the journal's.
    journaled: bool,
    _lock: File,
}

impl Batch {
    /// Starts a batch into `out`: takes its lock (waiting for any other coordsim writing
    /// into it) and completes a swap a killed report left there.
    pub(crate) fn begin(out: &Path) -> anyhow::Result<Batch> {
        let lock = lock(out)?;
        Ok(Batch {
            out: out.to_path_buf(),
            tag: super::random_tag(),
            entries: Vec::new(),
            journaled: false,
            _lock: lock,
        })
    }

    fn add(&mut self, kind: Kind, name: &str) -> anyhow::Result<()> {
        check_stem(name).map_err(anyhow::Error::msg)?;
        if self.entries.iter().any(|e| e.name == name) {
            bail!("{} is written twice", self.out.join(name).display());
        }
        self.entries.push(Entry {
            kind,
            name: name.to_string(),
        });
        Ok(())
    }

    /// Starts building the folder `out/name` and gives back where its files go. Refuses
    /// when `out/name` is something coordsim may not replace.
    pub(crate) fn folder(&mut self, name: &str) -> anyhow::Result<PathBuf> {
        self.add(Kind::Folder, name)?;
        let tmp = swap_path(&self.out, name, &self.tag, "partial");
        begin_folder(&self.out, name, &tmp, Writer::Report)?;
        Ok(tmp)
    }

    /// Where the folder `name` of this batch is being built, if it is.
    pub(crate) fn path_of(&self, name: &str) -> Option<PathBuf> {
        self.entries
            .iter()
            .any(|e| e.kind == Kind::Folder && e.name == name)
            .then(|| swap_path(&self.out, name, &self.tag, "partial"))
    }

    /// Writes `bytes` as the new `out/name` (the caller has made sure any file there is
    /// one coordsim may replace). Leftovers of `name` from a killed run go first.
    pub(crate) fn file(&mut self, name: &str, bytes: &[u8]) -> anyhow::Result<()> {
        use std::io::Write;
        self.add(Kind::File, name)?;
        remove_leftover_files(&self.out, name)?;
        let tmp = swap_path(&self.out, name, &self.tag, "partial");
        let written = (|| -> std::io::Result<()> {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            file.write_all(bytes)?;
            file.flush()
        })();
        written.with_context(|| format!("cannot write {}", tmp.display()))
    }

    /// Removes the folder `out/name` with the swap, if it is then still one a previous
    /// report wrote and nobody changed.
    pub(crate) fn remove(&mut self, name: &str) -> anyhow::Result<()> {
        self.add(Kind::Remove, name)
    }

    /// Swaps every entry in. After Ctrl-C nothing is swapped: the previous report stays.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        self.commit_unless(&crate::interrupt::stop_flag(), usize::MAX)
    }

    /// [`Batch::commit`], unless `stop` is raised (then the builds are dropped and the error
    /// is [`crate::interrupt::Interrupted`]); stops dead, as a kill would, after `steps`
    /// changes to the folder once the journal is written (tests).
    fn commit_unless(
        mut self,
        stop: &std::sync::atomic::AtomicBool,
        mut steps: usize,
    ) -> anyhow::Result<()> {
        for e in self.entries.iter().filter(|e| e.kind == Kind::Folder) {
            seal(
                &swap_path(&self.out, &e.name, &self.tag, "partial"),
                Writer::Report,
            )?;
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(anyhow::Error::new(crate::interrupt::Interrupted));
        }
        for e in self.entries.iter().filter(|e| e.kind == Kind::Folder) {
            // Checked at the start too; something appeared there during the run.
            if let Existing::Foreign(why) = inspect(&self.out.join(&e.name)) {
                bail!("{why}");
            }
        }
        self.entries.sort();
        write_journal(&self.out, &self.tag, &self.entries)?;
        self.journaled = true;
        swap(&self.out, &self.tag, &self.entries, &mut steps)
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        if self.journaled {
            return;
        }
        for e in &self.entries {
            let tmp = swap_path(&self.out, &e.name, &self.tag, "partial");
            match e.kind {
                Kind::Folder => drop(std::fs::remove_dir_all(&tmp)),
                Kind::File => drop(std::fs::remove_file(&tmp)),
                Kind::Remove => {}
            }
        }
    }
}

/// Removes what a killed run left of the file `out/name`: its hidden builds and copies set
/// aside (`.NAME.<16 hex>.partial` or `.old`, regular files), dead without a journal.
fn remove_leftover_files(out: &Path, name: &str) -> anyhow::Result<()> {
    let prefix = format!(".{name}.");
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let entry = entry?;
        let file = entry.file_name().to_string_lossy().into_owned();
        let leftover = file.strip_prefix(&prefix).is_some_and(|rest| {
            rest.strip_suffix(".partial")
                .or_else(|| rest.strip_suffix(".old"))
                .is_some_and(is_tag)
        });
        if leftover && is_file(&entry.path()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::folder::{JOURNAL, JOURNAL_HEAD};
    use super::*;
    use std::collections::BTreeMap;

    /// Every file under `dir` (entries of `dir` whose name starts with `.` left out) with
    /// its bytes.
    fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        super::super::folder::files_under(dir, false)
    }

    fn hidden_entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        names.sort();
        names
    }

    /// A batch of generation `g` into `out`: folders `a` and `site`, a folder `only-g` of
    /// this generation alone, files `README.md` and `index.html`, each naming `g`; folders
    /// listed in `remove` go.
    fn generation(out: &Path, g: &str, remove: &[&str]) -> Batch {
        let mut batch = Batch::begin(out).unwrap();
        for name in ["a", "site", &format!("only-{g}")] {
            let dir = batch.folder(name).unwrap();
            std::fs::write(dir.join("page.html"), format!("{name} of {g}")).unwrap();
            std::fs::write(dir.join(format!("chart-{g}.svg")), g).unwrap();
        }
        for name in remove {
            batch.remove(name).unwrap();
        }
        batch
            .file("README.md", format!("index of {g}").as_bytes())
            .unwrap();
        batch
            .file("index.html", format!("site of {g}").as_bytes())
            .unwrap();
        batch
    }

    static GO: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    #[test]
    fn a_swap_killed_at_any_step_is_completed_by_the_next_run() {
        // The whole swap, once, to learn the two generations and count its steps.
        let reference = tempfile::tempdir().unwrap();
        generation(reference.path(), "old", &[]).commit().unwrap();
        let old = snapshot(reference.path());
        generation(reference.path(), "new", &["only-old"])
            .commit()
            .unwrap();
        let new = snapshot(reference.path());
        assert!(new.keys().all(|f| !f.contains("old")), "{:?}", new.keys());
        assert!(hidden_entries(reference.path()).is_empty());
        let mut killed_mid_swap = 0;
        for steps in 0.. {
            let out = tempfile::tempdir().unwrap();
            generation(out.path(), "old", &[]).commit().unwrap();
            generation(out.path(), "new", &["only-old"])
                .commit_unless(&GO, steps)
                .unwrap();
            let done = hidden_entries(out.path()).is_empty();
            if !done {
                killed_mid_swap += 1;
            }
            // The next coordsim into the folder (here a run of another config) finishes it.
            drop(crate::export::folder::Staging::begin(out.path(), "other").unwrap());
            assert_eq!(snapshot(out.path()), new, "killed after {steps} steps");
            assert!(hidden_entries(out.path()).is_empty(), "after {steps} steps");
            if done {
                break;
            }
        }
        // 4 entries replaced (2 renames each), 1 new (1 rename), 1 removed (1 rename), the 5
        // entries set aside deleted, then the journal: 16 moments to be killed at.
        assert_eq!(killed_mid_swap, 4 * 2 + 1 + 1 + 5 + 1);
        // Killed before the journal was written (the builds stay, hidden): the old
        // generation, whole, and the next batch removes the builds.
        let out = tempfile::tempdir().unwrap();
        generation(out.path(), "old", &[]).commit().unwrap();
        let mut killed = generation(out.path(), "new", &["only-old"]);
        // As a kill: the lock goes with the process, the builds stay.
        killed.journaled = true;
        drop(killed);
        assert_eq!(snapshot(out.path()), old);
        let next = generation(out.path(), "new", &["only-old"]);
        next.commit().unwrap();
        assert_eq!(snapshot(out.path()), new);
        assert!(
            hidden_entries(out.path()).is_empty(),
            "{:?}",
            hidden_entries(out.path())
        );
    }

    #[test]
    fn ctrl_c_or_an_error_before_the_swap_leaves_the_previous_generation() {
        let out = tempfile::tempdir().unwrap();
        generation(out.path(), "old", &[]).commit().unwrap();
        let old = snapshot(out.path());
        let stop = std::sync::atomic::AtomicBool::new(true);
        let e = generation(out.path(), "new", &["only-old"])
            .commit_unless(&stop, usize::MAX)
            .unwrap_err();
        assert!(e.is::<crate::interrupt::Interrupted>(), "{e}");
        drop(generation(out.path(), "new", &["only-old"]));
        assert_eq!(snapshot(out.path()), old);
        assert!(hidden_entries(out.path()).is_empty());
    }

    #[test]
    fn a_journal_coordsim_did_not_write_is_left_alone() {
        let out = tempfile::tempdir().unwrap();
        generation(out.path(), "old", &[]).commit().unwrap();
        let old = snapshot(out.path());
        let tag = "0123456789abcdef";
        // Not a journal (another first line): nothing it names is touched.
        std::fs::write(
            out.path().join(format!("{JOURNAL}{tag}")),
            "hello\nremove a\n",
        )
        .unwrap();
        // A journal naming a path outside the folder is no journal of coordsim's either.
        std::fs::write(
            out.path().join(format!("{JOURNAL}fedcba9876543210")),
            format!("{JOURNAL_HEAD}\nremove ../x\n"),
        )
        .unwrap();
        // A journal killed while it was written: removed.
        let half = out.path().join(format!(".{JOURNAL}{tag}.{tag}.partial"));
        std::fs::write(&half, "coordsim sw").unwrap();
        let (batch, warnings) = crate::export::folder::caught(|| Batch::begin(out.path()).unwrap());
        drop(batch);
        // Each journal that is not one is named, and left.
        let left = |t: &str| {
            format!(
                "left {} alone: it has the name of a coordsim swap journal but is not one",
                out.path().join(format!("{JOURNAL}{t}")).display()
            )
        };
        assert_eq!(warnings, [left(tag), left("fedcba9876543210")]);
        assert_eq!(snapshot(out.path()), old);
        assert!(!half.exists());
        assert_eq!(
            hidden_entries(out.path()),
            [
                format!("{JOURNAL}{tag}"),
                format!("{JOURNAL}fedcba9876543210")
            ]
        );
    }

    #[test]
    fn a_removal_spares_a_folder_the_report_did_not_write() {
        let out = tempfile::tempdir().unwrap();
        generation(out.path(), "old", &[]).commit().unwrap();
        // `run --out` wrote `only-old` since: its marker says so, and the swap keeps it.
        let s = crate::export::folder::Staging::begin(out.path(), "only-old").unwrap();
        std::fs::write(s.path().join("results.csv"), "mine").unwrap();
        s.commit().unwrap();
        generation(out.path(), "new", &["only-old"])
            .commit()
            .unwrap();
        assert_eq!(
            std::fs::read(out.path().join("only-old/results.csv")).unwrap(),
            b"mine"
        );
    }
}

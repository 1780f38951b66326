//! A config's output folder, replaced whole: built under a hidden name, then swapped in.
//!
//! `OUT/stem/` is written as `OUT/.stem.RANDOM.partial/` and renamed into place when every
//! file is in it, so files a config no longer writes disappear with the old folder, and an
//! interrupted run leaves the previous folder (or the new one), never a mix. The swap is two
//! renames (the old folder aside, the new one in); a kill between them leaves the old folder
//! aside, and the next run into `OUT` puts it back before anything else. Runs into one `OUT`
//! take turns: each holds an advisory lock on the folder itself (released by the system if
//! the process dies), so no lock file is left behind.
//!
//! **Only what coordsim can prove it wrote is ever removed or replaced.** Every folder it
//! builds holds a marker, [`MARKER`], whose text starts with `MARKER_HEAD` and lists the
//! files coordsim put there. A folder is replaced (or, by `report`, removed as stale) only
//! when it is a real folder (not a link) holding that marker and nothing the marker does not
//! list, or when it is empty; anything else — a user's folder that merely holds a
//! `results.csv`, an output folder the user added a note to, a planted link — is refused with
//! a message saying what to move, before anything runs.
//!
//! `report` replaces several entries together (see `export::batch`); the journal of such a
//! swap, the swap and its completion after a kill live here, below the lock every command
//! takes: whoever next writes into the folder completes a swap a kill interrupted.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The marker file in every output folder coordsim writes.
pub const MARKER: &str = ".coordsim-output";

/// The marker's first line: what proves the folder is coordsim's.
pub(crate) const MARKER_HEAD: &str =
    "coordsim output folder: written whole by coordsim and replaced whole by its next run.";

/// The marker line of a folder `coordsim report` wrote: the report's own record of what it
/// may remove once the folder's config is gone. Folders `run` and `merge` write lack it, so
/// a report never removes them.
pub(crate) const BY_REPORT: &str =
    "written by `coordsim report`, whose next run removes it when its config is gone.";

/// Who builds an output folder: what its marker says about who may remove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Writer {
    /// `run` or `merge`: replaced by the next run of its config, never removed.
    Run,
    /// `report`: removed by the next report when its config is gone.
    Report,
}

/// Whether `stem` may name an output folder: not empty, not `.` or `..`, no path separator,
/// no leading dot (hidden names are the staging folders'), no control character.
pub(crate) fn check_stem(stem: &str) -> Result<(), String> {
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

/// What is at a place an output folder goes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Existing {
    /// Nothing: the folder is new.
    Nothing,
    /// An empty folder, or one coordsim wrote and nobody added to: may be replaced.
    Ours,
    /// Something coordsim may not touch, and why (a sentence naming what to move).
    Foreign(String),
}

/// What is at `dir` and whether coordsim may replace it.
pub(crate) fn inspect(dir: &Path) -> Existing {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(_) => return Existing::Nothing,
    };
    let shown = dir.display();
    if meta.file_type().is_symlink() {
        return Existing::Foreign(format!(
            "{shown} is a link: coordsim writes a folder of its own there; remove the link or write elsewhere with --out"
        ));
    }
    if !meta.is_dir() {
        return Existing::Foreign(format!(
            "{shown} is not a folder: move it away, coordsim writes a folder there"
        ));
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Existing::Foreign(format!("{shown} cannot be read"));
    };
    let mut names = Vec::new();
    for entry in entries {
        let Ok(entry) = entry else {
            return Existing::Foreign(format!("{shown} cannot be read"));
        };
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    if names.is_empty() {
        return Existing::Ours;
    }
    let Some(listed) = read_marker(&dir.join(MARKER)) else {
        return Existing::Foreign(format!(
            "{shown} exists and is not a coordsim output folder (it has no {MARKER} marker): move it away, or write elsewhere with --out (a folder written by a coordsim older than the marker can simply be deleted)"
        ));
    };
    names.sort();
    match names.iter().find(|n| *n != MARKER && !listed.contains(n)) {
        Some(extra) => Existing::Foreign(format!(
            "{shown} holds {extra:?}, which coordsim did not write: coordsim replaces its output folders whole, so move that file away first"
        )),
        None => Existing::Ours,
    }
}

/// The text of a marker of coordsim's at `path` (a regular file, not a link, starting with
/// [`MARKER_HEAD`]), or `None`. Read with a cap: a marker is small.
fn read_marker_text(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    (text.lines().next()? == MARKER_HEAD).then_some(text)
}

/// The file names a marker lists, or `None` when `path` is not a marker of coordsim's.
pub(super) fn read_marker(path: &Path) -> Option<Vec<String>> {
    let text = read_marker_text(path)?;
    Some(
        text.lines()
            .filter_map(|l| l.strip_prefix("file "))
            .map(str::to_string)
            .collect(),
    )
}

/// The marker's text for a folder holding `names` (sorted, once each), built by `by`.
pub(super) fn marker_text(names: &[String], by: Writer) -> String {
    let mut text =
        format!("{MARKER_HEAD}\nA file added here makes coordsim refuse to replace the folder.\n");
    if by == Writer::Report {
        text.push_str(BY_REPORT);
        text.push('\n');
    }
    for name in names {
        text.push_str(&format!("file {name}\n"));
    }
    text
}

/// An output folder being built.
pub(crate) struct Staging {
    out: PathBuf,
    stem: String,
    tmp: PathBuf,
    committed: bool,
    _lock: File,
}

/// The two kinds of hidden folder a run leaves beside `OUT/stem` while it works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hidden {
    /// `.stem.TAG.partial`: being built.
    Partial,
    /// `.stem.TAG.old`: the previous folder, moved aside for the swap.
    Old,
}

impl Hidden {
    fn suffix(self) -> &'static str {
        match self {
            Hidden::Partial => "partial",
            Hidden::Old => "old",
        }
    }
}

fn hidden(stem: &str, kind: Hidden) -> String {
    format!(".{stem}.{}.{}", super::random_tag(), kind.suffix())
}

/// The stem and kind of a hidden staging name, read exactly: `.` + stem + `.` + 16 lowercase
/// hex digits + `.partial` or `.old`. (Matching by prefix would take `.x.y.….partial`, the
/// staging folder of `x.y.toml`, for one of `x.toml`.)
pub(super) fn parse_hidden(name: &str) -> Option<(&str, Hidden)> {
    let rest = name.strip_prefix('.')?;
    let (rest, kind) = if let Some(r) = rest.strip_suffix(".partial") {
        (r, Hidden::Partial)
    } else {
        (rest.strip_suffix(".old")?, Hidden::Old)
    };
    let (stem, tag) = rest.rsplit_once('.')?;
    let is_tag = tag.len() == 16
        && tag
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    is_tag.then_some((stem, kind))
}

impl Staging {
    /// Starts building `out/stem` (waiting for any other run writing into `out`). Refuses at
    /// once, before anything runs, when `out/stem` is something coordsim may not replace.
    pub(crate) fn begin(out: &Path, stem: &str) -> anyhow::Result<Staging> {
        check_stem(stem).map_err(anyhow::Error::msg)?;
        let lock = lock(out)?;
        let tmp = out.join(hidden(stem, Hidden::Partial));
        begin_folder(out, stem, &tmp, Writer::Run)?;
        Ok(Staging {
            out: out.to_path_buf(),
            stem: stem.to_string(),
            tmp,
            committed: false,
            _lock: lock,
        })
    }

    /// Where the files go until [`Staging::commit`].
    pub(crate) fn path(&self) -> &Path {
        &self.tmp
    }

    /// Puts the new folder in the old one's place, its marker listing every file in it.
    /// After Ctrl-C nothing is swapped: the previous folder stays as it was.
    pub(crate) fn commit(self) -> anyhow::Result<PathBuf> {
        self.commit_unless(&crate::interrupt::stop_flag())
    }

    /// [`Staging::commit`], unless `stop` is raised (then the build is dropped and the
    /// error is [`crate::interrupt::Interrupted`]).
    pub(crate) fn commit_unless(
        mut self,
        stop: &std::sync::atomic::AtomicBool,
    ) -> anyhow::Result<PathBuf> {
        seal(&self.tmp, Writer::Run)?;
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(anyhow::Error::new(crate::interrupt::Interrupted));
        }
        let target = self.out.join(&self.stem);
        let old = self.out.join(hidden(&self.stem, Hidden::Old));
        let had_old = match inspect(&target) {
            Existing::Nothing => false,
            Existing::Ours => {
                std::fs::rename(&target, &old)
                    .with_context(|| format!("cannot move {} aside", target.display()))?;
                true
            }
            // Checked at the start too; something appeared there during the run.
            Existing::Foreign(why) => bail!("{why}"),
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

/// Takes `out` for this process's writes (creating it): waits for any other coordsim writing
/// into it, then completes a swap a killed `report` left half-done. The lock lasts as long
/// as the file.
pub(super) fn lock(out: &Path) -> anyhow::Result<File> {
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
    recover_swaps(out)?;
    Ok(lock)
}

/// Creates the staging folder `tmp` for `out/stem` (the lock held), marked from the start
/// so a killed run's leftover is provably coordsim's; first cleans up what a killed run of
/// `stem` left, and refuses when `out/stem` is something coordsim may not replace.
pub(super) fn begin_folder(out: &Path, stem: &str, tmp: &Path, by: Writer) -> anyhow::Result<()> {
    recover(out, stem)?;
    if let Existing::Foreign(why) = inspect(&out.join(stem)) {
        bail!("{why}");
    }
    std::fs::create_dir(tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    // A full disk fails the marker: no empty staging folder left behind.
    super::write_atomic(&tmp.join(MARKER), marker_text(&[], by).as_bytes()).inspect_err(|_| {
        let _ = std::fs::remove_dir(tmp);
    })
}

/// Rewrites the marker of the folder built at `tmp` to list every file in it.
pub(super) fn seal(tmp: &Path, by: Writer) -> anyhow::Result<()> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(tmp).with_context(|| format!("cannot read {}", tmp.display()))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name != MARKER {
            names.push(name);
        }
    }
    names.sort();
    super::write_atomic(&tmp.join(MARKER), marker_text(&names, by).as_bytes())
}

/// Whether `dir` is a folder `report` wrote and nobody changed since: its marker says
/// [`BY_REPORT`] and it holds nothing the marker does not list.
pub(crate) fn written_by_report(dir: &Path) -> bool {
    read_marker_text(&dir.join(MARKER)).is_some_and(|t| t.lines().any(|l| l == BY_REPORT))
        && inspect(dir) == Existing::Ours
}

/// Whether `dir` holds a marker of coordsim's (whoever wrote it, changed or not).
pub(crate) fn has_marker(dir: &Path) -> bool {
    read_marker(&dir.join(MARKER)).is_some()
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// After a run was killed: the previous folder put back if it was moved aside and not
/// replaced, and every leftover staging folder of `stem` removed (the lock is held). Only
/// real folders that are provably coordsim's are touched; anything else with a staging name
/// (a planted link, a user's folder) is left where it is, with a warning.
pub(super) fn recover(out: &Path, stem: &str) -> anyhow::Result<()> {
    let mut olds = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((of, kind)) = parse_hidden(&name) else {
            continue;
        };
        if of != stem {
            continue;
        }
        let path = entry.path();
        // A folder being built is marked at its creation and lists its files only when
        // complete; one moved aside was complete.
        let ours = match kind {
            Hidden::Partial => {
                is_real_dir(&path)
                    && (read_marker(&path.join(MARKER)).is_some() || marker_being_written(&path))
            }
            Hidden::Old => {
                read_marker(&path.join(MARKER)).is_some() && inspect(&path) == Existing::Ours
            }
        } || is_empty_real_dir(&path);
        if !ours {
            warn(format!(
                "left {} alone: it has the name of a coordsim staging folder but is not one",
                path.display()
            ));
            continue;
        }
        match kind {
            Hidden::Partial => {
                let _ = std::fs::remove_dir_all(&path);
            }
            Hidden::Old => olds.push(path),
        }
    }
    olds.sort();
    let target = out.join(stem);
    for (i, old) in olds.into_iter().enumerate() {
        if i == 0 && inspect(&target) == Existing::Nothing {
            std::fs::rename(&old, &target)
                .with_context(|| format!("cannot restore {}", target.display()))?;
        } else {
            let _ = std::fs::remove_dir_all(&old);
        }
    }
    Ok(())
}

pub(super) fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// A folder killed while its marker was first written: it holds nothing but the marker's
/// temporary file (`..coordsim-output.RANDOM.partial`, see `write_atomic`).
fn marker_being_written(path: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(path) else {
        return false;
    };
    let mut any = false;
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let name = entry.file_name().to_string_lossy().into_owned();
        let temp = name
            .strip_prefix(&format!(".{MARKER}."))
            .and_then(|r| r.strip_suffix(".partial"))
            .is_some_and(|tag| tag.len() == 16 && tag.bytes().all(|b| b.is_ascii_hexdigit()));
        if !temp || !entry.file_type().is_ok_and(|t| t.is_file()) {
            return false;
        }
        any = true;
    }
    any
}

fn is_empty_real_dir(path: &Path) -> bool {
    is_real_dir(path) && std::fs::read_dir(path).is_ok_and(|mut e| e.next().is_none())
}

// The swap of several entries together (`report`, see `super::batch`): its journal, the
// swap itself, and its completion after a kill.

/// The journal's name before its tag.
pub(super) const JOURNAL: &str = ".coordsim-swap.";

/// The journal's first line: what proves it is coordsim's.
pub(super) const JOURNAL_HEAD: &str = "coordsim swap: the entries below are being replaced together; the next coordsim to write into this folder completes the swap.";

/// What a swap of several entries does to one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    /// A folder built whole, replacing the one of its name.
    Folder,
    /// A folder the previous report wrote, removed.
    Remove,
    /// A file, replacing the one of its name.
    File,
}

impl Kind {
    pub(super) fn word(self) -> &'static str {
        match self {
            Kind::Folder => "folder",
            Kind::Remove => "remove",
            Kind::File => "file",
        }
    }

    fn read(word: &str) -> Option<Kind> {
        [Kind::Folder, Kind::Remove, Kind::File]
            .into_iter()
            .find(|k| k.word() == word)
    }
}

/// One entry: what happens to `OUT/name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Entry {
    pub(super) kind: Kind,
    pub(super) name: String,
}

/// `OUT/.NAME.TAG.SUFFIX`.
pub(super) fn swap_path(out: &Path, name: &str, tag: &str, suffix: &str) -> PathBuf {
    out.join(format!(".{name}.{tag}.{suffix}"))
}

/// Whether anything (a link included) is at `path`.
pub(super) fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

pub(super) fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// Whether `tag` is one of [`super::random_tag`]'s: 16 lowercase hex digits.
pub(super) fn is_tag(tag: &str) -> bool {
    tag.len() == 16
        && tag
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Spends one of `steps` (one change to the folder); `false` once they are all spent.
pub(super) fn step(steps: &mut usize) -> bool {
    if *steps == 0 {
        return false;
    }
    *steps -= 1;
    true
}

/// Puts every entry in place (the old one aside, the new one in; a removed folder aside),
/// then removes what was set aside, then the journal. Each step checks what is there, so a
/// swap stopped anywhere and run again from its journal ends as one run through would.
pub(super) fn swap(
    out: &Path,
    tag: &str,
    entries: &[Entry],
    steps: &mut usize,
) -> anyhow::Result<()> {
    for e in entries {
        let target = out.join(&e.name);
        let tmp = swap_path(out, &e.name, tag, "partial");
        let old = swap_path(out, &e.name, tag, "old");
        // What was there is set aside only while its replacement waits (or, for a
        // removal, while it is still the previous report's), and only once.
        let aside = match e.kind {
            Kind::Folder => exists(&tmp) && inspect(&target) == Existing::Ours,
            Kind::File => exists(&tmp) && is_file(&target),
            Kind::Remove => written_by_report(&target),
        };
        if aside && !exists(&old) {
            if !step(steps) {
                return Ok(());
            }
            std::fs::rename(&target, &old)
                .with_context(|| format!("cannot move {} aside", target.display()))?;
        }
        if e.kind == Kind::Remove || !exists(&tmp) {
            continue;
        }
        if exists(&target) {
            // Only when something new appeared there since the swap began.
            warn(format!(
                "left {} alone and dropped the report's new one: it appeared while the report was put in place",
                target.display()
            ));
            continue;
        }
        if !step(steps) {
            return Ok(());
        }
        std::fs::rename(&tmp, &target)
            .with_context(|| format!("cannot put {} in place", target.display()))?;
    }
    for e in entries {
        let old = swap_path(out, &e.name, tag, "old");
        let gone = match e.kind {
            Kind::File if is_file(&old) => Some(std::fs::remove_file(&old)),
            Kind::Folder | Kind::Remove if is_real_dir(&old) => Some(std::fs::remove_dir_all(&old)),
            _ => None,
        };
        if let Some(gone) = gone {
            if !step(steps) {
                return Ok(());
            }
            gone.with_context(|| format!("cannot remove {}", old.display()))?;
        }
    }
    if !step(steps) {
        return Ok(());
    }
    let journal = out.join(format!("{JOURNAL}{tag}"));
    std::fs::remove_file(&journal).with_context(|| format!("cannot remove {}", journal.display()))
}

/// Completes every swap a killed report left in `out` (its lock held), and removes a
/// journal a kill left half-written. A file with a journal's name that is not one is left
/// alone, with a warning.
pub(super) fn recover_swaps(out: &Path) -> anyhow::Result<()> {
    let mut journals = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(tag) = name.strip_prefix(JOURNAL).filter(|t| is_tag(t)) {
            journals.push((tag.to_string(), entry.path()));
        } else {
            remove_half_journal(&entry.path(), &name, JOURNAL);
        }
    }
    journals.sort();
    for (tag, path) in journals {
        let Some(entries) = read_journal(&path) else {
            warn(format!(
                "left {} alone: it has the name of a coordsim swap journal but is not one",
                path.display()
            ));
            continue;
        };
        let mut steps = usize::MAX;
        swap(out, &tag, &entries, &mut steps).with_context(|| {
            format!(
                "cannot complete the swap a killed `coordsim report` left in {}",
                out.display()
            )
        })?;
    }
    Ok(())
}

/// Removes the entry `name` at `path` when it is the temporary file of a journal named
/// `journal` and a tag (`.JOURNALTAG.TAG.partial`, a regular file) that a kill left
/// half-written: its swap never started.
pub(super) fn remove_half_journal(path: &Path, name: &str, journal: &str) {
    let half = name
        .strip_prefix(&format!(".{journal}"))
        .and_then(|r| r.strip_suffix(".partial"))
        .is_some_and(|r| r.split('.').all(is_tag));
    if half && is_file(path) {
        let _ = std::fs::remove_file(path);
    }
}

/// The entries of the journal at `path`, or `None` when it is not one of coordsim's (a
/// regular file starting with [`JOURNAL_HEAD`], every line an entry with a plain name).
fn read_journal(path: &Path) -> Option<Vec<Entry>> {
    if !is_file(path) {
        return None;
    }
    let text = crate::input::read_capped(path, 1 << 20).ok()?;
    let text = String::from_utf8(text).ok()?;
    let mut lines = text.lines();
    if lines.next()? != JOURNAL_HEAD {
        return None;
    }
    lines
        .map(|l| {
            let (word, name) = l.split_once(' ')?;
            check_stem(name).ok()?;
            Some(Entry {
                kind: Kind::read(word)?,
                name: name.to_string(),
            })
        })
        .collect()
}

/// Writes the journal of the swap `tag` of `entries` into `out`, atomically: from then on a
/// kill leaves the swap for the next run to complete.
pub(super) fn write_journal(out: &Path, tag: &str, entries: &[Entry]) -> anyhow::Result<()> {
    let mut journal = format!("{JOURNAL_HEAD}\n");
    for e in entries {
        journal.push_str(&format!("{} {}\n", e.kind.word(), e.name));
    }
    super::write_atomic(&out.join(format!("{JOURNAL}{tag}")), journal.as_bytes())
}

/// Says `warning: MESSAGE` on stderr (a closed stderr stops the message, not the run); in a
/// unit test inside [`caught`], hands it to the test instead, which asserts it.
fn warn(message: String) {
    #[cfg(test)]
    {
        let held = CAUGHT.with(|c| c.borrow_mut().as_mut().map(|w| w.push(message.clone())));
        if held.is_some() {
            return;
        }
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "warning: {message}");
}

#[cfg(test)]
thread_local! {
    /// The warnings [`caught`] is collecting on this thread (each test has its own).
    static CAUGHT: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f`, and returns what it gave with the warnings it said (none reach stderr).
#[cfg(test)]
pub(super) fn caught<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    CAUGHT.with(|c| *c.borrow_mut() = Some(Vec::new()));
    let out = f();
    let warnings = CAUGHT.with(|c| c.borrow_mut().take()).unwrap_or_default();
    (out, warnings)
}

/// Every file under `dir` with its bytes (by its path below `dir`); the hidden entries of
/// `dir` itself (staging folders, journals, the marker) only with `hidden` (tests of a swap).
#[cfg(test)]
pub(super) fn files_under(dir: &Path, hidden: bool) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if d == dir && rel.starts_with('.') && !hidden {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    /// A committed output folder `out/stem` holding `files`.
    fn output(out: &Path, stem: &str, files: &[&str]) {
        let s = Staging::begin(out, stem).unwrap();
        for f in files {
            std::fs::write(s.path().join(f), "x").unwrap();
        }
        s.commit().unwrap();
    }

    const TAG: &str = "0123456789abcdef";

    #[test]
    fn stems_that_would_leave_the_folder_are_refused() {
        for bad in ["", ".", "..", ".hidden", "a/b", "a\\b", "a\u{7}b"] {
            assert!(check_stem(bad).is_err(), "{bad:?}");
        }
        for good in ["shared-store", "mg1_study", "ders-003", "x.y"] {
            assert!(check_stem(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn hidden_names_are_read_exactly() {
        assert_eq!(
            parse_hidden(&format!(".x.{TAG}.partial")),
            Some(("x", Hidden::Partial))
        );
        // The staging folder of `x.y.toml` is not one of `x.toml`.
        assert_eq!(
            parse_hidden(&format!(".x.y.{TAG}.old")),
            Some(("x.y", Hidden::Old))
        );
        for not in [
            ".x.partial",
            ".x.0123.old",
            ".x.0123456789ABCDEF.old",
            "x.0123456789abcdef.old",
            ".x.0123456789abcdef.tmp",
        ] {
            assert_eq!(parse_hidden(not), None, "{not}");
        }
    }

    #[test]
    fn a_commit_replaces_the_folder_and_an_abandoned_build_leaves_the_old_one() {
        let out = tempfile::tempdir().unwrap();
        output(out.path(), "c", &["old.txt", "results.csv"]);
        // A new build without old.txt: after the commit only new.txt (and the marker) is there.
        output(out.path(), "c", &["new.txt"]);
        assert_eq!(names(&out.path().join("c")), [MARKER, "new.txt"]);
        let marker = std::fs::read_to_string(out.path().join("c").join(MARKER)).unwrap();
        assert!(
            marker.starts_with(MARKER_HEAD) && marker.ends_with("file new.txt\n"),
            "{marker}"
        );
        // A build dropped half-way (an error) leaves the committed folder and no trace.
        {
            let s = Staging::begin(out.path(), "c").unwrap();
            std::fs::write(s.path().join("half.txt"), "3").unwrap();
        }
        assert_eq!(names(out.path()), ["c"]);
    }

    #[test]
    fn a_folder_coordsim_cannot_prove_it_wrote_is_never_replaced() {
        let out = tempfile::tempdir().unwrap();
        // A user's folder that happens to hold a results.csv: refused before anything runs.
        std::fs::create_dir(out.path().join("mine")).unwrap();
        std::fs::write(out.path().join("mine/results.csv"), "a").unwrap();
        std::fs::write(out.path().join("mine/notes.txt"), "keep").unwrap();
        let e = Staging::begin(out.path(), "mine")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("is not a coordsim output folder"), "{e}");
        assert_eq!(
            names(&out.path().join("mine")),
            ["notes.txt", "results.csv"]
        );
        // An output folder the user added a note to: refused, naming the note.
        output(out.path(), "c", &["results.csv"]);
        std::fs::write(out.path().join("c/notes.txt"), "keep").unwrap();
        let e = Staging::begin(out.path(), "c").err().unwrap().to_string();
        assert!(
            e.contains("\"notes.txt\", which coordsim did not write"),
            "{e}"
        );
        // A marker with another first line proves nothing.
        std::fs::create_dir(out.path().join("fake")).unwrap();
        std::fs::write(out.path().join("fake").join(MARKER), "hello\nfile a\n").unwrap();
        std::fs::write(out.path().join("fake/a"), "keep").unwrap();
        assert!(matches!(
            inspect(&out.path().join("fake")),
            Existing::Foreign(_)
        ));
        // A link where the folder goes is not followed, not replaced.
        std::os::unix::fs::symlink(out.path().join("c"), out.path().join("link")).unwrap();
        let e = Staging::begin(out.path(), "link")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("is a link"), "{e}");
        assert!(!written_by_report(&out.path().join("fake")));
        assert!(out.path().join("fake/a").exists());
    }

    #[test]
    fn ctrl_c_while_writing_leaves_the_previous_folder() {
        let out = tempfile::tempdir().unwrap();
        output(out.path(), "c", &["old.csv"]);
        let s = Staging::begin(out.path(), "c").unwrap();
        std::fs::write(s.path().join("new.csv"), "x").unwrap();
        let stop = std::sync::atomic::AtomicBool::new(true);
        let e = s.commit_unless(&stop).unwrap_err();
        assert!(e.is::<crate::interrupt::Interrupted>(), "{e}");
        assert_eq!(names(&out.path().join("c")), [MARKER, "old.csv"]);
        assert_eq!(names(out.path()), ["c"]);
    }

    #[test]
    fn a_kill_between_the_renames_is_undone_by_the_next_run() {
        let out = tempfile::tempdir().unwrap();
        // The state a kill after "move aside" leaves: no folder, the old one aside (marked,
        // as every folder coordsim builds), and a half-built one.
        output(out.path(), "c", &["results.csv"]);
        let aside = out.path().join(format!(".c.{TAG}.old"));
        std::fs::rename(out.path().join("c"), &aside).unwrap();
        let partial = out
            .path()
            .join(format!(".c.{}.partial", "fedcba9876543210"));
        std::fs::create_dir(&partial).unwrap();
        std::fs::write(partial.join(MARKER), marker_text(&[], Writer::Run)).unwrap();
        std::fs::write(partial.join("half.csv"), "x").unwrap();
        let s = Staging::begin(out.path(), "c").unwrap();
        assert_eq!(
            std::fs::read_to_string(out.path().join("c/results.csv")).unwrap(),
            "x"
        );
        assert!(!partial.exists());
        assert!(!aside.exists());
        drop(s);
    }

    #[test]
    fn a_kill_while_the_marker_is_first_written_is_cleaned_up() {
        // A staging folder killed inside `write_atomic` of its first marker holds only the
        // marker's temporary file: it is coordsim's, and the next run removes it.
        let out = tempfile::tempdir().unwrap();
        let partial = out.path().join(format!(".c.{TAG}.partial"));
        std::fs::create_dir(&partial).unwrap();
        std::fs::write(
            partial.join(format!(".{MARKER}.fedcba9876543210.partial")),
            "coordsim o",
        )
        .unwrap();
        // Anything else beside it makes the folder someone else's.
        let other = out.path().join(".c.fedcba9876543210.partial");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(
            other.join(format!(".{MARKER}.fedcba9876543210.partial")),
            "x",
        )
        .unwrap();
        std::fs::write(other.join("notes.txt"), "mine").unwrap();
        let (s, warnings) = caught(|| Staging::begin(out.path(), "c").unwrap());
        assert_eq!(
            warnings,
            [format!(
                "left {} alone: it has the name of a coordsim staging folder but is not one",
                other.display()
            )]
        );
        assert!(!partial.exists());
        assert!(other.join("notes.txt").exists());
        drop(s);
    }

    #[test]
    fn recovery_touches_only_its_own_stem_and_its_own_folders() {
        let out = tempfile::tempdir().unwrap();
        // The preserved folder of `x.y.toml` survives a run of `x.toml`.
        output(out.path(), "x.y", &["results.csv"]);
        let keep = out.path().join(format!(".x.y.{TAG}.old"));
        std::fs::rename(out.path().join("x.y"), &keep).unwrap();
        // A planted link with a staging name is neither renamed into place nor followed.
        let victim = out.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        std::fs::write(victim.join("data"), "keep").unwrap();
        std::os::unix::fs::symlink(&victim, out.path().join(format!(".x.{TAG}.old"))).unwrap();
        // A user's folder with a partial's name is left alone too.
        let theirs = out
            .path()
            .join(format!(".x.{}.partial", "fedcba9876543210"));
        std::fs::create_dir(&theirs).unwrap();
        std::fs::write(theirs.join("data"), "keep").unwrap();
        let ((), mut warnings) = caught(|| output(out.path(), "x", &["results.csv"]));
        warnings.sort();
        let left = |p: &Path| {
            format!(
                "left {} alone: it has the name of a coordsim staging folder but is not one",
                p.display()
            )
        };
        let mut want = [
            left(&theirs),
            left(&out.path().join(format!(".x.{TAG}.old"))),
        ];
        want.sort();
        assert_eq!(warnings, want);
        assert!(keep.join("results.csv").exists());
        assert_eq!(
            std::fs::read_to_string(victim.join("data")).unwrap(),
            "keep"
        );
        assert!(
            std::fs::symlink_metadata(out.path().join("x"))
                .unwrap()
                .is_dir()
        );
        assert!(out.path().join("x").join(MARKER).exists());
        assert!(theirs.join("data").exists());
    }
}

//! The report as a static, offline site: `OUT/index.html` and the pages under `OUT/site/`.
//!
//! `coordsim report` writes it after the configs and lessons are checked: an index of every
//! config and lesson (failures first, totals equal to the terminal's), a page per config
//! (its parameters, sweep, table, charts, claims with their verdicts, and its own text with
//! line numbers, each claim linked to its line, and a slider over its sweep: `slider.rs`) and
//! a page per lesson (its Markdown rendered, every checked region marked, its provenance
//! shown on hover or focus), with its reader's view and its self-contained fragment to paste
//! into a course's platform (`fragment.rs`). No server, no network, no script needed: CSS
//! shows the provenance and a chart is its image; `site.js` adds the Escape key, the slider
//! and the live charts (`charts.js`: a point's values on hover, tap or focus, its chart's
//! points saved as CSV, one series picked out; `live.rs`).
//!
//! The pages are written with `html::Html`, which escapes every user string by
//! construction. `OUT/site/` is an output folder like a config's (its marker listing its
//! files); `OUT/index.html` is replaced only when its second line is `INDEX_HEAD`. Both go
//! into the report's `Batch`, swapped in with the config folders whose charts the pages
//! show, as one unit. Every byte depends only on the runs, the configs and the lessons.

mod claims_table;
pub(crate) mod config_page;
mod explorer;
mod fragment;
mod frame;

pub(crate) mod html;

pub(crate) mod index;

mod images;

pub(crate) mod lesson_page;

mod live;

pub mod locales;

pub(crate) mod markdown;
mod meanings;
mod provenance;
mod regions;
mod slider;
mod svg;
mod words;

use std::path::Path;

use anyhow::bail;

use crate::export::batch::Batch;
use crate::export::folder::{Existing, inspect};
use crate::export::write_atomic;

pub(crate) use frame::{FOLDER, INDEX, INDEX_HEAD, Input};

/// The stylesheet every page links.
const STYLE: &str = include_str!("style.css");

/// The only script: progressive touches (Escape closes a provenance; the live charts, whose
/// script a lesson's fragment holds too, run here with the document as their root).
const SCRIPT: &str = concat!(
    include_str!("site.js"),
    "(function (root) {\n",
    include_str!("charts.js"),
    "})(document);\n"
);
/// The explorer's script: only a page with an explorer loads it (a lesson's fragment holds
/// it inline, with its own element as root).
const EXPLORER: &str = concat!(
    "(function (root) {\n",
    include_str!("explorer.js"),
    "})(document);\n"
);

/// Refuses, before anything runs, a report whose site would replace what coordsim did not
/// write: an `OUT/index.html` of the user's, an `OUT/site/` that is not coordsim's, or a
/// config whose output folder would be `site`.
pub(crate) fn check_place(out: &Path, stems: &[String]) -> anyhow::Result<()> {
    if stems.iter().any(|s| s == FOLDER) {
        bail!(
            "a config named `{FOLDER}.toml` would write its outputs into {}, where the report's site goes: rename the config",
            out.join(FOLDER).display()
        );
    }
    let index = out.join(INDEX);
    if let Ok(meta) = std::fs::symlink_metadata(&index) {
        let ours = meta.is_file()
            && crate::input::read_capped(&index, 64 << 20)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .is_some_and(|t| t.lines().nth(1) == Some(INDEX_HEAD));
        if !ours {
            bail!(
                "{} exists and was not written by `coordsim report`: move it away, or write the report elsewhere with --out",
                index.display()
            );
        }
    }
    if let Existing::Foreign(why) = inspect(&out.join(FOLDER)) {
        bail!("{why}");
    }
    Ok(())
}

/// Builds the site in `batch`: `OUT/site/` (every page, the stylesheet, the script and the
/// lessons' images) and `OUT/index.html`, from the config folders `batch` is building.
pub(crate) fn write(input: &Input<'_>, batch: &mut Batch) -> anyhow::Result<()> {
    let configs = config_page::pages(input, batch)?;
    let lessons = lesson_page::pages(input, &configs)?;
    let dir = batch.folder(FOLDER)?;
    write_atomic(&dir.join("style.css"), STYLE.as_bytes())?;
    write_atomic(&dir.join("site.js"), SCRIPT.as_bytes())?;
    write_atomic(&dir.join("explorer.js"), EXPLORER.as_bytes())?;
    for page in configs.iter().map(|c| &c.page).chain(lessons.pages.iter()) {
        write_atomic(&dir.join(&page.file), page.html.as_bytes())?;
    }
    for (name, bytes) in &lessons.images {
        write_atomic(&dir.join(name), bytes)?;
    }
    let index = index::render(input, &configs, &lessons);
    batch.file(INDEX, index.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::frame::unique_name;
    use super::*;

    #[test]
    fn names_are_plain_and_unique() {
        let mut used = vec!["style.css".to_string()];
        assert_eq!(
            unique_name("config-", "a b", ".html", &mut used),
            "config-a_b.html"
        );
        assert_eq!(
            unique_name("config-", "a?b", ".html", &mut used),
            "config-a_b-2.html"
        );
        assert_eq!(unique_name("img-", "x/y", ".svg", &mut used), "img-x_y.svg");
        assert_eq!(
            unique_name("img-", "x y", ".svg", &mut used),
            "img-x_y-2.svg"
        );
        // 120 bytes of the base at most: 60 two-byte letters.
        let long = unique_name("c-", &"ş".repeat(200), "", &mut used);
        assert_eq!(long.len(), 2 + 120);
    }

    #[test]
    fn a_place_coordsim_did_not_write_is_refused() {
        let out = tempfile::tempdir().unwrap();
        assert!(check_place(out.path(), &["a".into()]).is_ok());
        let e = check_place(out.path(), &["site".into()]).unwrap_err();
        assert!(e.to_string().contains("rename the config"), "{e}");
        std::fs::write(out.path().join(INDEX), "<!DOCTYPE html>\n<p>mine</p>\n").unwrap();
        let e = check_place(out.path(), &[]).unwrap_err();
        assert!(e.to_string().contains("was not written by"), "{e}");
        std::fs::write(
            out.path().join(INDEX),
            format!("<!DOCTYPE html>\n{INDEX_HEAD}\n"),
        )
        .unwrap();
        assert!(check_place(out.path(), &[]).is_ok());
        std::fs::create_dir(out.path().join(FOLDER)).unwrap();
        std::fs::write(out.path().join(FOLDER).join("notes.txt"), "mine").unwrap();
        let e = check_place(out.path(), &[]).unwrap_err();
        assert!(
            e.to_string().contains("not a coordsim output folder"),
            "{e}"
        );
    }
}

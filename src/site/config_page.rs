//! A config's page: title, model, parameters and sweep, the table in the config's locale,
//! every chart, every claim with its verdict, the config's own text with line numbers (each
//! claim links to its line), and links to its CSV files.

use std::path::PathBuf;

use super::frame::{Depth, Input, Page, page, unique_name, value_text};
use super::html::Html;
use super::markdown::{self, Plain};
use super::meanings;
use super::words::{Words, say};
use crate::check::Verdict;
use crate::config::Config;
use crate::export::Run;
use crate::export::chart::{Live, NARROW_SUFFIX};
use crate::lesson::eval::Loaded;

/// Most rows of the table a page shows (`table.md` and the CSV files hold them all).
pub(crate) const MAX_TABLE_ROWS: usize = 2000;

/// A config's page and what the index and the lesson pages say of it.
pub(crate) struct ConfigInfo {
    /// The page.
    pub(crate) page: Page,
    /// The config's canonical path (how lessons name it).
    pub(crate) canonical: PathBuf,
    /// As named on the command line (`configs/lessons/foo.toml`).
    pub(crate) name: String,
    /// Its output folder's name.
    pub(crate) stem: String,
    /// Its title.
    pub(crate) title: String,
    /// Its model.
    pub(crate) model: String,
    /// Its locale's name (`tr`), the language of its title.
    pub(crate) locale: String,
    /// Rows of `results.csv`.
    pub(crate) rows: usize,
    /// Claims that hold.
    pub(crate) passed: usize,
    /// Every claim's verdict, in the config's order (anchor `claim-N`, N from 1).
    pub(crate) verdicts: Vec<Verdict>,
    /// Its charts' phone renderings, as paths in its output folder
    /// (`wait.narrow.svg`, `explore/trace-1.narrow.svg`).
    pub(crate) narrow: Vec<String>,
    /// Its explorer's graph (`explore/play.json`), when the exploration wrote one: what a
    /// lesson's explorer plays.
    pub(crate) play: Option<String>,
    /// The files of its output folder a lesson's chart saves (`wait.png`,
    /// `explore/trace-1.csv`).
    pub(crate) files: Vec<String>,
}

impl ConfigInfo {
    /// Its page's file name in `OUT/site/`.
    pub(crate) fn file(&self) -> &str {
        &self.page.file
    }

    /// Claims that failed.
    pub(crate) fn failed(&self) -> usize {
        self.verdicts.len() - self.passed
    }
}

/// Every config's page, in path order.
pub(crate) fn pages(
    input: &Input<'_>,
    batch: &crate::export::batch::Batch,
) -> anyhow::Result<Vec<ConfigInfo>> {
    let mut used = vec![
        "style.css".to_string(),
        "site.js".to_string(),
        "explorer.js".to_string(),
    ];
    let mut out = Vec::new();
    for (canonical, loaded) in input.runs {
        let config = &loaded.config;
        let verdicts: Vec<Verdict> = input
            .verdicts
            .iter()
            .filter(|v| v.config == config.source.name)
            .cloned()
            .collect();
        let file = unique_name("config-", &config.stem, ".html", &mut used);
        // The folder being built beside the site, not the one it replaces.
        let dir = batch
            .path_of(&config.stem)
            .unwrap_or_else(|| input.out.join(&config.stem));
        let files = output_files(&dir)?;
        let explored = if dir.join("explore").is_dir() {
            output_files(&dir.join("explore"))?
        } else {
            Vec::new()
        };
        // The explorer's graph, when the exploration wrote one.
        let play = std::fs::read_to_string(dir.join("explore").join("play.json")).ok();
        let lc = input.words.words(config.locale);
        let run = Run {
            config,
            results: &loaded.results,
            summary: loaded.summary.as_ref(),
            seed: input.seed.unwrap_or(config.seed),
        };
        let live = crate::export::chart::live(&run)?;
        // Each point's outcomes, for the slider.
        let outcomes = (!explored.is_empty())
            .then(|| crate::input::read_capped(&dir.join("explore/outcomes.csv"), 64 << 20).ok())
            .flatten()
            .and_then(|b| String::from_utf8(b).ok());
        let html = render(
            loaded,
            &verdicts,
            (&files, &explored, play.as_deref()),
            (&live, outcomes.as_deref()),
            input.seed,
            lc,
        );
        out.push(ConfigInfo {
            page: Page { file, html },
            canonical: canonical.clone(),
            name: config.source.name.clone(),
            stem: config.stem.clone(),
            title: config.title.clone(),
            model: config.model.name().to_string(),
            locale: config.locale.name().to_string(),
            rows: loaded.results.results.rows.len(),
            passed: verdicts.iter().filter(|v| v.pass).count(),
            verdicts,
            narrow: (files.iter())
                .filter(|f| f.ends_with(NARROW_SUFFIX))
                .cloned()
                .chain(
                    (explored.iter())
                        .filter(|f| f.ends_with(NARROW_SUFFIX))
                        .map(|f| format!("explore/{f}")),
                )
                .collect(),
            play,
            files: (files.iter().cloned())
                .chain(explored.iter().map(|f| format!("explore/{f}")))
                .collect(),
        });
    }
    Ok(out)
}

/// The files of a config's output folder, sorted (its marker left out).
fn output_files(dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in
        std::fs::read_dir(dir).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", dir.display()))?
    {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// The page; `files` are the output folder's and its `explore/` folder's, `play` the
/// explorer's graph (`explore/play.json`).
fn render(
    loaded: &Loaded,
    verdicts: &[Verdict],
    (files, explored, play): (&[String], &[String], Option<&str>),
    (live, outcomes): (&[Live], Option<&str>),
    seed: Option<u64>,
    lc: Words<'_>,
) -> String {
    let config = &loaded.config;
    let lang = config.locale.name();
    let mut h = Html::new();
    h.el("h1", &[("lang", lang)], &config.title).newline();
    facts(&mut h, loaded, files, seed, lc);
    contents(&mut h, config, !explored.is_empty(), lc);
    super::claims_table::claims(&mut h, config, verdicts, lc);
    table(&mut h, loaded, seed, lc);
    super::slider::slider(&mut h, loaded, (files, explored), seed, outcomes, lc);
    charts(&mut h, config, files, live, lc);
    if !explored.is_empty() {
        executions(&mut h, config, explored, lc);
        if let Some(play) = play {
            super::explorer::section(&mut h, play, lc);
        }
    }
    parameters(&mut h, config, lc);
    source(&mut h, config, verdicts, lc);
    page(
        Depth::Site,
        &format!("{} — {}", config.title, config.source.name),
        h,
        lc,
    )
}

/// The config's file, model, seed and size, and links to its data files.
fn facts(h: &mut Html, loaded: &Loaded, files: &[String], seed: Option<u64>, lc: Words<'_>) {
    let config = &loaded.config;
    h.open("dl", &[("class", "facts")]).newline();
    let fact = |h: &mut Html, term: &str, body: &dyn Fn(&mut Html)| {
        h.el("dt", &[], term);
        h.open("dd", &[]);
        body(h);
        h.close("dd").newline();
    };
    fact(h, say(lc, "config"), &|h| {
        h.el("a", &[("href", "#source")], &config.source.name);
    });
    fact(h, say(lc, "model"), &|h| {
        h.el("code", &[], config.model.name());
    });
    fact(h, say(lc, "runs"), &|h| {
        h.text(
            &say(
                lc,
                "{points} point(s) × {replications} replication(s); {rows} row(s) in results.csv; seed {seed}",
            )
            .replace("{points}", &config.points.to_string())
            .replace("{replications}", &config.replications.to_string())
            .replace("{rows}", &loaded.results.results.rows.len().to_string())
            .replace("{seed}", &seed.unwrap_or(config.seed).to_string()),
        );
    });
    fact(h, say(lc, "locale"), &|h| {
        h.text(config.locale.name());
    });
    fact(h, say(lc, "data"), &|h| {
        let data: Vec<&String> = files
            .iter()
            .filter(|f| f.ends_with(".csv") || f.ends_with(".md"))
            .collect();
        for (i, f) in data.iter().enumerate() {
            if i > 0 {
                h.text(" · ");
            }
            h.el("a", &[("href", &Depth::Site.output(&config.stem, f))], f);
        }
    });
    h.close("dl").newline();
}

/// Links to the page's sections.
fn contents(h: &mut Html, config: &Config, explored: bool, lc: Words<'_>) {
    h.open("nav", &[("class", "contents")]);
    let mut sections = vec![
        ("#claims", say(lc, "Claims")),
        ("#table", say(lc, "Table")),
        ("#charts", say(lc, "Charts")),
    ];
    if explored {
        sections.push(("#executions", say(lc, "Every execution")));
    }
    sections.push(("#parameters", say(lc, "Parameters")));
    if !config.axes.is_empty() {
        sections.push(("#sweep", say(lc, "Sweep")));
    }
    sections.push(("#source", say(lc, "Config text")));
    for (k, (href, text)) in sections.into_iter().enumerate() {
        if k > 0 {
            h.text(" · ");
        }
        h.el("a", &[("href", href)], text);
    }
    h.close("nav").newline();
}

/// `text` with its `backquoted` spans as code, as a model writes a value or a key in the
/// meaning it declares (`` `poll`, `none` or `lease` ``); an unpaired backquote stays text.
fn code_spans(h: &mut Html, text: &str) {
    let parts: Vec<&str> = text.split('`').collect();
    let paired = parts.len() % 2 == 1;
    for (index, part) in parts.iter().enumerate() {
        if index % 2 == 1 && (paired || index + 1 < parts.len()) {
            h.el("code", &[], part);
        } else {
            if index % 2 == 1 {
                h.text("`");
            }
            h.text(part);
        }
    }
}

/// Every parameter's value (and where the config sets it), then the sweep's axes.
fn parameters(h: &mut Html, config: &Config, lc: Words<'_>) {
    let line_of = |span: &crate::source::Span| config.source.line_col(span.start).0;
    let line_link = |h: &mut Html, line: usize| {
        h.el(
            "a",
            &[("href", &format!("#L{line}")), ("class", "line-link")],
            &say(lc, "line {line}").replace("{line}", &line.to_string()),
        );
    };
    h.el("h2", &[("id", "parameters")], say(lc, "Parameters"))
        .newline();
    h.open("div", &[("class", "table-wrap")]).open("table", &[]);
    h.open("thead", &[]).open("tr", &[]);
    for head in ["parameter", "value", "set", "meaning"] {
        h.el("th", &[], say(lc, head));
    }
    h.close("tr").close("thead").open("tbody", &[]).newline();
    let params = config.model.params();
    for (i, key) in config.key_names().into_iter().enumerate() {
        let axis = config.axes.iter().find(|a| a.param == i);
        h.open("tr", &[]);
        h.with("td", &[], |h| {
            h.el("code", &[], key);
        });
        match axis {
            Some(a) => h.el(
                "td",
                &[],
                &say(lc, "swept: {count} values").replace("{count}", &a.values.len().to_string()),
            ),
            None => match config.derived_text(i) {
                Some(expr) => derived_cell(h, config, i, &expr, lc),
                None => h.el("td", &[], &value_text(&config.base[i], lc)),
            },
        };
        h.with("td", &[], |h| match (axis, config.param_span(i)) {
            (Some(a), _) => match a.spans.first() {
                Some(span) => line_link(h, line_of(span)),
                None => {
                    h.text(say(lc, "sweep"));
                }
            },
            (None, Some(span)) => line_link(h, line_of(span)),
            (None, None) if i < params.len() => {
                h.text(say(lc, "default"));
            }
            (None, None) => {
                h.text("[vars]");
            }
        });
        let meaning = params.get(i).map_or_else(
            || {
                config
                    .vars
                    .get(i - params.len())
                    .map_or_else(String::new, |(_, d)| d.clone())
            },
            |p| meanings::meaning(config.model.as_ref(), p, lc),
        );
        h.with("td", &[("class", "prose")], |h| code_spans(h, &meaning));
        h.close("tr").newline();
    }
    h.close("tbody").close("table").close("div").newline();
    if config.axes.is_empty() {
        return;
    }
    h.el("h3", &[("id", "sweep")], say(lc, "Sweep")).newline();
    h.open("ul", &[("class", "axes")]).newline();
    for axis in &config.axes {
        h.open("li", &[]);
        h.el("code", &[], &axis.key);
        if config.has_label(&axis.key) {
            h.text(" (")
                .el(
                    "span",
                    &[("lang", config.locale.name())],
                    config.label(&axis.key),
                )
                .text(")");
        }
        let values: Vec<String> = axis.values.iter().map(|v| value_text(v, lc)).collect();
        h.text(&format!(": {}", shown_list(&values, 50, lc)));
        if let Some(span) = axis.spans.first() {
            h.text(" — ");
            line_link(h, line_of(span));
        }
        h.close("li").newline();
    }
    h.close("ul").newline();
}

/// A derived parameter's cell: its expression and the value each point used, in the
/// table's order (`s / rho; at the points in order: 20, 12, 8.57`), or its one value when
/// every point used the same (`p * q = 0.15`). Its default is never shown: no point used
/// it.
fn derived_cell<'h>(
    h: &'h mut Html,
    config: &Config,
    param: usize,
    expr: &str,
    lc: Words<'_>,
) -> &'h mut Html {
    let mut values: Vec<String> = (0..config.points)
        .map(|point| match &config.point_values(point)[param] {
            coordsim_model::Value::Float(x) => crate::format::number(*x, lc.locale),
            other => value_text(other, lc),
        })
        .collect();
    h.with("td", &[("class", "derived")], |h| {
        h.el("code", &[], expr);
        if values.windows(2).all(|w| w[0] == w[1]) {
            values.truncate(1);
            h.text(&format!(" = {}", values.join("")));
        } else {
            h.text(
                &say(lc, "; at the points in order: {values}")
                    .replace("{values}", &shown_list(&values, 50, lc)),
            );
        }
    })
}

/// `a, b, c` of the first `most` values, then how many more; `a; b; c` where a value's
/// own comma (a decimal comma) would blur them (`0; 0,25; 0,5`).
fn shown_list(values: &[String], most: usize, lc: Words<'_>) -> String {
    let shown = &values[..values.len().min(most)];
    let separator = if shown.iter().any(|v| v.contains(',')) {
        "; "
    } else {
        ", "
    };
    let mut text = shown.join(separator);
    if values.len() > most {
        text.push_str(
            &say(lc, ", … ({count} in all)").replace("{count}", &values.len().to_string()),
        );
    }
    text
}

/// The table `table.md` holds, in the config's locale (its first [`MAX_TABLE_ROWS`] rows).
fn table(h: &mut Html, loaded: &Loaded, seed: Option<u64>, lc: Words<'_>) {
    let config = &loaded.config;
    let run = Run {
        config,
        results: &loaded.results,
        summary: loaded.summary.as_ref(),
        seed: seed.unwrap_or(config.seed),
    };
    let text = crate::export::markdown::render(&run);
    let mut kept = String::new();
    let mut rows = 0;
    for line in text.lines() {
        if line.starts_with('|') {
            rows += 1;
            // The header and its rule, then the rows.
            if rows > MAX_TABLE_ROWS + 2 {
                continue;
            }
        }
        kept.push_str(line);
        kept.push('\n');
    }
    h.el("h2", &[("id", "table")], say(lc, "Table")).newline();
    h.with("div", &[("lang", config.locale.name())], |h| {
        let plain = Plain(say(lc, "an image in a table is not shown"));
        h.append(markdown::render(&kept, &plain));
    });
    if rows > MAX_TABLE_ROWS + 2 {
        h.with("p", &[("class", "note")], |h| {
            h.text(
                &say(lc, "The first {shown} of {total} rows; ")
                    .replace("{shown}", &MAX_TABLE_ROWS.to_string())
                    .replace("{total}", &(rows - 2).to_string()),
            )
            .el(
                "a",
                &[("href", &Depth::Site.output(&config.stem, "table.md"))],
                "table.md",
            )
            .text(say(lc, " and the CSV files hold them all."));
        })
        .newline();
    }
}

/// Every chart the run drew (its SVG inline, links to the SVG and the PNG); a line or bar
/// chart's points beside it for `site.js` ([`super::live`]).
fn charts(h: &mut Html, config: &Config, files: &[String], live: &[Live], lc: Words<'_>) {
    let mut svgs: Vec<&str> = files
        .iter()
        .filter(|f| !f.ends_with(NARROW_SUFFIX))
        .filter_map(|f| f.strip_suffix(".svg"))
        .collect();
    // In the config's `[[chart]]` order, not the files' names: a file is its chart's
    // (`NAME.svg`, or `NAME-…` for a chart drawn per point, the longest such name).
    let order = |file: &str| {
        config
            .charts
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                file == c.name
                    || file
                        .strip_prefix(c.name.as_str())
                        .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|(_, c)| c.name.len())
            .map_or(usize::MAX, |(i, _)| i)
    };
    svgs.sort_by_key(|f| order(f));
    h.el("h2", &[("id", "charts")], say(lc, "Charts")).newline();
    if svgs.is_empty() {
        h.el("p", &[], say(lc, "This config draws no chart."))
            .newline();
        return;
    }
    if svgs.iter().any(|name| live.iter().any(|l| l.name == *name)) {
        h.json("chart-words", &super::live::words(lc)).newline();
    }
    for name in svgs {
        let svg = format!("{name}.svg");
        let png = format!("{name}.png");
        let points = live.iter().find(|l| l.name == name);
        let id = format!("chart-{name}");
        match points {
            Some(_) => h.open("figure", &[("id", &id), ("class", "live")]),
            None => h.open("figure", &[("id", &id)]),
        }
        .newline();
        let narrow = format!("{name}{NARROW_SUFFIX}");
        let narrow = files
            .contains(&narrow)
            .then(|| Depth::Site.output(&config.stem, &narrow));
        h.chart_image(
            &Depth::Site.output(&config.stem, &svg),
            narrow.as_deref(),
            &format!("{}: {name}", config.title),
        );
        h.open("figcaption", &[]);
        h.el("code", &[], name).text(" · ");
        // Links that save the file (a browser shows it only when asked to).
        let save = |h: &mut Html, file: &str, text: &str| {
            let href = Depth::Site.output(&config.stem, file);
            h.el("a", &[("href", &href), ("download", file)], text);
        };
        save(h, &svg, "SVG");
        if files.contains(&png) {
            h.text(" · ");
            save(h, &png, "PNG");
        }
        h.close("figcaption");
        if let Some(points) = points {
            h.json("chart-points", &super::live::points(points));
        }
        h.close("figure").newline();
    }
}

/// What the exploration found (`explore/`): the execution that decides each claim over
/// executions, as its step chart, with its step table and the schedule that runs it again.
fn executions(h: &mut Html, config: &Config, files: &[String], lc: Words<'_>) {
    let link = |h: &mut Html, file: &str| {
        h.el(
            "a",
            &[(
                "href",
                &Depth::Site.output(&config.stem, &format!("explore/{file}")),
            )],
            file,
        );
    };
    h.el("h2", &[("id", "executions")], say(lc, "Every execution"))
        .newline();
    h.open("p", &[]);
    h.text(say(lc, "Every execution of each point, explored ("));
    link(h, "explore.md");
    h.text(say(lc, ", every outcome in "));
    link(h, "outcomes.csv");
    h.text(say(
        lc,
        "). Each claim an execution decides, by the execution that decides it (the shortest, or a scheduler's most likely):",
    ));
    h.close("p").newline();
    let traces: Vec<&str> = files
        .iter()
        .filter(|f| !f.ends_with(NARROW_SUFFIX))
        .filter_map(|f| f.strip_prefix("trace-")?.strip_suffix(".svg"))
        .collect();
    for n in traces {
        let svg = format!("trace-{n}.svg");
        // The id a lesson's `chart NAME trace-N` block links to, as any chart's. A step
        // chart is as wide as its steps: it scrolls in its box rather than shrink.
        h.open(
            "figure",
            &[("id", &format!("chart-trace-{n}")), ("class", "steps")],
        )
        .newline();
        let narrow = format!("trace-{n}{NARROW_SUFFIX}");
        let narrow = files
            .contains(&narrow)
            .then(|| Depth::Site.output(&config.stem, &format!("explore/{narrow}")));
        h.chart_image(
            &Depth::Site.output(&config.stem, &format!("explore/{svg}")),
            narrow.as_deref(),
            // The number first: a title may hold `{n}`.
            &say(lc, "{title}: the execution deciding claim {n}")
                .replace("{n}", n)
                .replace("{title}", &config.title),
        );
        h.open("figcaption", &[]);
        h.text(&say(lc, "claim {n} · ").replace("{n}", n));
        link(h, &svg);
        for file in [format!("trace-{n}.csv"), format!("schedule-{n}.toml")] {
            if files.contains(&file) {
                h.text(" · ");
                link(h, &file);
            }
        }
        h.text(" · ");
        h.el(
            "code",
            &[],
            &format!(
                "coordsim run {} --schedule …/schedule-{n}.toml",
                config.source.name
            ),
        );
        h.close("figcaption").close("figure").newline();
    }
}

/// The config's own text, one anchor per line (`#L12`); a claim's lines marked with its
/// verdict, its first line linking back to the claim.
fn source(h: &mut Html, config: &Config, verdicts: &[Verdict], lc: Words<'_>) {
    let text = &config.source.text;
    // (first line, last line, claim number, pass) of each claim.
    let spans: Vec<(usize, usize, usize, bool)> = config
        .claims
        .iter()
        .zip(verdicts)
        .enumerate()
        .map(|(k, (c, v))| {
            let last = config.source.line_col(c.span.end.saturating_sub(1)).0;
            let last = claim_end(text, last.max(v.config_line));
            (v.config_line, last, k + 1, v.pass)
        })
        .collect();
    h.el("h2", &[("id", "source")], &config.source.name)
        .newline();
    h.open("pre", &[("class", "source")]).open("code", &[]);
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let id = format!("L{n}");
        let claim = spans.iter().find(|(a, b, _, _)| (*a..=*b).contains(&n));
        let class = match claim {
            Some((_, _, _, true)) => "line claim pass",
            Some((_, _, _, false)) => "line claim fail",
            None => "line",
        };
        h.open("span", &[("class", class), ("id", &id)]);
        h.el(
            "a",
            &[("href", &format!("#{id}")), ("class", "ln")],
            &n.to_string(),
        );
        h.el("span", &[("class", "text")], line);
        if let Some((first, _, k, _)) = claim
            && *first == n
        {
            h.el(
                "a",
                &[("href", &format!("#claim-{k}")), ("class", "to-claim")],
                &say(lc, "claim {n}").replace("{n}", &k.to_string()),
            );
        }
        // Each line is a block of its own: no line end between them.
        h.close("span");
    }
    h.close("code").close("pre").newline();
}

/// The last line of a claim's table that starts at line `first` (1-based): the line before
/// the next table header (`[…`), blank and comment lines before it left out.
fn claim_end(text: &str, first: usize) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut end = first;
    for (i, line) in lines.iter().enumerate().skip(first) {
        let t = line.trim();
        if t.starts_with('[') {
            break;
        }
        if !t.is_empty() && !t.starts_with('#') {
            end = i + 1;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> String {
        let mut h = Html::new();
        code_spans(&mut h, text);
        h.finish()
    }

    /// Paired backquotes are code, escaped like any text; an unpaired one stays a backquote.
    #[test]
    fn backquoted_spans_are_code() {
        assert_eq!(
            spans("`poll` or `a<b`"),
            "<code>poll</code> or <code>a&lt;b</code>"
        );
        assert_eq!(spans("no code"), "no code");
        assert_eq!(spans("`x` and ` alone"), "<code>x</code> and ` alone");
    }
}

//! Comparing a lesson's regions with the runs of its configs, and what `fill` writes.

use std::path::{Path, PathBuf};

use coordsim_model::Cell;

use super::parse::{Kind, Lesson, LessonError, Pos, Region};
pub(crate) use super::select::selected;
use super::select::{Selection, Stat, select};
use crate::config::Config;
use crate::export::Run;
use crate::export::markdown::{self, TableView};
use crate::locale::Locale;
use crate::results::{Results, Row, Table};

/// A config and its run, shared by every region that uses it.
pub(crate) struct Loaded {
    /// The config.
    pub(crate) config: Config,
    /// Its rows.
    pub(crate) results: Results,
    /// With replications, per-point statistics.
    pub(crate) summary: Option<Table>,
    /// Its exploration, once a trace chart asked for it: every trace block of the config
    /// reads the one exploration (an error kept as its text).
    pub(crate) explored: std::sync::OnceLock<Result<Vec<coordsim_model::Exploration>, String>>,
    /// Its exploration again with the schedulers' graph kept, made only when an `explored`
    /// region asks for an end over schedulers (`scheduler=min|max`) at a point with a free
    /// order and [`Loaded::explored`] kept no graph (its config claims no such end).
    pub(crate) explored_schedulers:
        std::sync::OnceLock<Result<Vec<coordsim_model::Exploration>, String>>,
    /// The config read in each other locale it speaks that a lesson using it is in
    /// ([`Config::in_locale`]): the same runs, another language's words.
    pub(crate) views: Vec<Config>,
}

impl Loaded {
    /// The config as a lesson in `locale` shows it: read in that locale when it speaks it,
    /// else as it is (its own words and locale).
    pub(crate) fn config_in(&self, locale: Locale) -> &Config {
        (self.views.iter())
            .find(|c| c.locale == locale)
            .unwrap_or(&self.config)
    }

    /// Reads the config in `locale` for a lesson, once, when it speaks it and is not in it
    /// already.
    pub(crate) fn add_view(
        &mut self,
        locale: Locale,
        registry: &coordsim_model::Registry,
    ) -> Result<(), crate::source::ConfigError> {
        if self.config.locale != locale
            && self.config.speaks(locale)
            && !self.views.iter().any(|c| c.locale == locale)
        {
            self.views.push(self.config.in_locale(locale, registry)?);
        }
        Ok(())
    }

    /// Its run, as a lesson in `locale` shows it.
    pub(crate) fn run_in(&self, locale: Locale) -> Run<'_> {
        Run {
            config: self.config_in(locale),
            results: &self.results,
            summary: self.summary.as_ref(),
            seed: self.config.seed,
        }
    }
}

/// What a region's check found.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// Where the region's content starts.
    pub(crate) pos: Pos,
    /// The region as a test name: `store.ratio_pct form=assign`.
    pub(crate) name: String,
    /// Whether the text matches the run.
    pub(crate) pass: bool,
    /// The text as written (a table: its lines; a chart: the image path).
    pub(crate) written: String,
    /// What the run gives, in the same form.
    pub(crate) run: String,
    /// The allowed difference, for a number (`± 0.05`).
    pub(crate) precision: Option<String>,
    /// A `ci` region's test: the written value inside the run's interval of the mean, at
    /// this confidence — (level, lo, hi, runs).
    pub(crate) interval: Option<(f64, f64, f64, usize)>,
    /// A unified diff, for a drifted table.
    pub(crate) diff: Option<String>,
    /// What `fill` puts in the region's place (`None`: a chart, whose file is written).
    pub(crate) replacement: Option<String>,
    /// A chart: the image file and the bytes the run renders.
    pub(crate) image: Option<(PathBuf, Vec<u8>)>,
    /// The lesson's locale, which `written`, `run` and `precision` are in.
    pub(crate) locale: Locale,
}

pub(super) fn error(pos: Pos, message: impl Into<String>) -> LessonError {
    LessonError {
        pos,
        message: message.into(),
    }
}

/// The number in a region's text: (prefix, the number as written, suffix).
pub(crate) fn split_number(text: &str, locale: Locale) -> Option<(&str, &str, &str)> {
    let marks = [locale.decimal_mark(), locale.group_mark()];
    let bytes: Vec<(usize, char)> = text.char_indices().collect();
    let start = bytes.iter().position(|(i, c)| {
        c.is_ascii_digit()
            || ((*c == '-' || *c == '−')
                && text[i + c.len_utf8()..].starts_with(|d: char| d.is_ascii_digit()))
    })?;
    let mut end = start + 1;
    while end < bytes.len() && (bytes[end].1.is_ascii_digit() || marks.contains(&bytes[end].1)) {
        end += 1;
    }
    // A mark at the end is punctuation, not part of the number.
    while end > start + 1 && marks.contains(&bytes[end - 1].1) {
        end -= 1;
    }
    let (a, b) = (bytes[start].0, bytes.get(end).map_or(text.len(), |x| x.0));
    Some((&text[..a], &text[a..b], &text[b..]))
}

/// Whether a run value matches a number written with `decimals` decimals: within half a
/// unit of the last written digit (`206,5` holds 206.45 … 206.55), with room for the float
/// error of the run's own arithmetic.
pub(crate) fn within_precision(run: f64, written: f64, decimals: usize) -> bool {
    let half = 0.5 * 10f64.powi(-(decimals as i32));
    (run - written).abs() <= half + 1e-9 * run.abs().max(1.0)
}

/// A number for the lesson: `decimals` decimals in the locale (as `table.md` writes it).
pub(crate) fn write_number(x: f64, decimals: usize, locale: Locale) -> String {
    crate::format::cell(&Cell::Float(x), Some(decimals), locale)
}

pub(super) fn region_name(region: &Region) -> String {
    let mut name = match &region.kind {
        Kind::Value { column } => format!("{}.{column}", region.config),
        Kind::Table => format!("table {}", region.config),
        Kind::Chart { chart } => format!("chart {} {chart}", region.config),
        Kind::Explored { what } => format!("explored {}.{what}", region.config),
        Kind::Explorer => format!("explorer {}", region.config),
    };
    for a in &region.args {
        match &a.value {
            Some(v) if v.contains(' ') => name.push_str(&format!(" {}=\"{v}\"", a.key)),
            Some(v) => name.push_str(&format!(" {}={v}", a.key)),
            None => name.push_str(&format!(" {}", a.key)),
        }
    }
    name
}

pub(super) fn value(
    lesson: &Lesson,
    region: &Region,
    column: &str,
    l: &Loaded,
) -> Result<Outcome, LessonError> {
    // In the lesson's words when the config speaks its locale: an entity or a text value
    // reads by its label there.
    let config = l.config_in(lesson.locale);
    let sel = select(config, &region.args, false)?;
    let cells = value_cells(region, column, l, config, &sel)?;
    // A value the same at every selected row (a fixed parameter of a swept config, a
    // figure every point shares) needs no statistic.
    let one_value = cells.iter().all(|c| c.to_string() == cells[0].to_string());
    if !one_value && sel.stat.is_none() {
        return Err(error(
            region.marker,
            format!(
                "the filters select {} rows (points or replications); narrow them, or add stat=mean, stat=min or stat=max",
                cells.len()
            ),
        ));
    }
    let written_text = &lesson.text[region.content.clone()];
    let numbers: Option<Vec<f64>> = cells.iter().map(|c| c.as_f64()).collect();
    match numbers.filter(|_| !cells.iter().any(|c| matches!(c, Cell::Text(_)))) {
        Some(numbers) => number_outcome(lesson, region, &sel, &numbers, written_text),
        None => {
            // A text value compares exactly (as the run writes it, or its label).
            if sel.stat.is_some() {
                return Err(error(region.marker, format!("`{column}` is text: no stat")));
            }
            let raw = cells[0].to_string();
            let shown = config.label(&raw).to_string();
            let pass = written_text.trim() == shown || written_text.trim() == raw;
            Ok(Outcome {
                pos: region.at,
                name: region_name(region),
                pass,
                written: written_text.to_string(),
                run: shown.clone(),
                precision: None,
                interval: None,
                diff: None,
                replacement: Some(if pass {
                    written_text.to_string()
                } else {
                    shown
                }),
                image: None,
                locale: lesson.locale,
            })
        }
    }
}

/// The cells a value region selects: of an entity column (with `entity=`), a metric, or a
/// parameter, at the rows its filters keep (at least one).
fn value_cells(
    region: &Region,
    column: &str,
    l: &Loaded,
    config: &Config,
    sel: &Selection,
) -> Result<Vec<Cell>, LessonError> {
    let on_entities = sel.entity.is_some();
    let source = if on_entities {
        l.results.entities.as_ref().ok_or_else(|| {
            error(
                region.marker,
                format!("{} has no entity rows", config.model.name()),
            )
        })?
    } else {
        &l.results.results
    };
    // The column: an entity column (with entity=), a metric, or a parameter.
    let col = source.column(column).filter(|_| {
        if on_entities {
            config
                .model
                .entity_columns()
                .iter()
                .any(|c| c.name == column)
        } else {
            config.model.metrics().iter().any(|c| c.name == column)
        }
    });
    let param = config.key_index(column);
    if col.is_none() && param.is_none() {
        let valid: Vec<&str> = if on_entities {
            config
                .model
                .entity_columns()
                .iter()
                .map(|c| c.name)
                .collect()
        } else {
            config
                .model
                .metrics()
                .iter()
                .map(|c| c.name)
                .chain(config.key_names())
                .collect()
        };
        return Err(error(
            region.marker,
            format!(
                "unknown {} `{column}` of {}{}; valid: {}",
                if on_entities {
                    "entity column"
                } else {
                    "metric or parameter"
                },
                config.model.name(),
                crate::suggest::did_you_mean(column, &valid),
                valid.join(", ")
            ),
        ));
    }
    let points = sel.points(config);
    let rows: Vec<&Row> = source
        .rows
        .iter()
        .filter(|r| sel.keeps(config, &points, source, r))
        .collect();
    let cells: Vec<Cell> = rows
        .iter()
        .map(|r| match col {
            Some(c) => r[c].clone(),
            None => {
                crate::format::value_cell(&config.point_values(source.point(r))[param.unwrap_or(0)])
            }
        })
        .collect();
    if cells.is_empty() {
        return Err(error(
            region.marker,
            match &sel.entity {
                Some(e) => format!("no row of entity `{e}` matches the filters"),
                None => "the filters select no row".into(),
            },
        ));
    }
    Ok(cells)
}

/// A numeric value region: the run's value (a statistic when asked) against the number
/// written, at the precision its digits give.
pub(super) fn number_outcome(
    lesson: &Lesson,
    region: &Region,
    sel: &Selection,
    numbers: &[f64],
    written_text: &str,
) -> Result<Outcome, LessonError> {
    let name = region_name(region);
    let run = match sel.stat {
        None => numbers[0],
        Some(Stat::Mean) => numbers.iter().sum::<f64>() / numbers.len() as f64,
        Some(Stat::Min) => numbers.iter().copied().fold(f64::INFINITY, f64::min),
        Some(Stat::Max) => numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    };
    // A fraction written as a percent: 0.0812 is `%8,1` (Turkish) or `8.1%` (English).
    let run = if sel.percent { run * 100.0 } else { run };
    let locale = lesson.locale;
    if sel.percent && !written_text.contains('%') {
        let example = match locale {
            Locale::Tr => format!("%{}", crate::format::number(run, locale)),
            Locale::En => format!("{}%", crate::format::number(run, locale)),
        };
        return Err(error(
            region.at,
            format!(
                "`{written_text}`: a `percent` region writes the value as a percent, with its sign ({example})"
            ),
        ));
    }
    let Some((prefix, number, suffix)) = split_number(written_text, locale) else {
        return Err(error(
            region.at,
            format!(
                "`{}` holds no number; write the run's value ({}) in the file's locale",
                written_text,
                crate::format::number(run, locale)
            ),
        ));
    };
    // Every number in a region is checked: one other than the value is refused, never
    // passed over (it would read as checked on the page).
    let after_number = prefix.chars().count() + number.chars().count();
    let loose = (super::lint::loose_numbers(prefix).into_iter())
        .chain(
            (super::lint::loose_numbers(suffix).into_iter()).map(|(at, n)| (after_number + at, n)),
        )
        .next();
    if let Some((at, other)) = loose {
        let byte = written_text.char_indices().nth(at).map_or(0, |(b, _)| b);
        let pos = Pos {
            col: region.at.col + at,
            offset: region.at.offset + byte,
            ..region.at
        };
        return Err(error(
            pos,
            format!(
                "`{other}` is not checked: a value region checks one number (here `{number}`); give `{other}` a region of its own, or write it outside this one"
            ),
        ));
    }
    // The percent sign stands where the locale puts it: `%8` in Turkish, `8%` in English.
    let misplaced = match locale {
        Locale::Tr => suffix.trim_start().starts_with('%'),
        Locale::En => prefix.trim_end().ends_with('%'),
    };
    if misplaced {
        let (before, after) = match locale {
            Locale::Tr => ("a Turkish lesson", "before the number"),
            Locale::En => ("an English lesson", "after the number"),
        };
        let expected = match locale {
            Locale::Tr => format!("%{number}"),
            Locale::En => format!("{number}%"),
        };
        return Err(error(
            region.at,
            format!(
                "`{}`: {before} writes the percent sign {after}: `{expected}`",
                written_text.trim()
            ),
        ));
    }
    let Some((written, decimals)) = locale.parse_number(number) else {
        return Err(error(
            region.at,
            format!(
                "`{number}` is not a number in locale `{}` ({})",
                locale.name(),
                match locale {
                    Locale::Tr => "decimal comma, `.` groups thousands in threes: 1.234,5",
                    Locale::En => "decimal point, `,` groups thousands in threes: 1,234.5",
                }
            ),
        ));
    };
    if let Some(level) = sel.ci {
        // A theory's value: `fill` leaves it as written (a run cannot correct a theory).
        let t = super::interval::interval_test(numbers, sel.percent, (written, decimals), level);
        return Ok(Outcome {
            pos: region.at,
            name,
            pass: t.pass,
            written: number.to_string(),
            run: t.run_text(decimals, locale),
            precision: Some(t.described(level, written, locale)),
            interval: Some((level, t.lo, t.hi, t.runs)),
            diff: None,
            replacement: Some(written_text.to_string()),
            image: None,
            locale: lesson.locale,
        });
    }
    // `digits=N` asks for N decimals: a text with other decimals is a drift that `fill`
    // mends, so a file `check` passes is one `fill` leaves alone.
    let pass = within_precision(run, written, decimals) && sel.digits.is_none_or(|d| d == decimals);
    let fill_decimals = sel.digits.unwrap_or(decimals);
    let replacement = if pass {
        written_text.to_string()
    } else {
        format!(
            "{prefix}{}{suffix}",
            write_number(run, fill_decimals, locale)
        )
    };
    Ok(Outcome {
        pos: region.at,
        name,
        pass,
        written: number.to_string(),
        // Three digits past the written ones: enough to see the drift, no float noise; in
        // the lesson's locale, as what is written.
        run: locale.number(&crate::format::decimals_trimmed(run, decimals + 3)),
        precision: Some({
            let half = locale.number(&(0.5 * 10f64.powi(-(decimals as i32))).to_string());
            match sel.digits {
                Some(d) if d != decimals => {
                    let list = locale.list_mark();
                    format!("± {half}{list} but digits={d} asks for {d} decimals")
                }
                _ => format!("± {half}"),
            }
        }),
        interval: None,
        diff: None,
        replacement: Some(replacement),
        image: None,
        locale: lesson.locale,
    })
}

/// A text's lines with their ends trimmed, trailing blank lines dropped.
fn normalized(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

pub(super) fn table(lesson: &Lesson, region: &Region, l: &Loaded) -> Result<Outcome, LessonError> {
    let config = l.config_in(lesson.locale);
    let sel = select(config, &region.args, true)?;
    if sel.entity_table && l.results.entities.is_none() {
        return Err(error(
            region.marker,
            format!("{} has no entity rows", config.model.name()),
        ));
    }
    let view = TableView {
        columns: sel.columns.clone(),
        entity: sel.entity_table || sel.entity.is_some(),
        locale: lesson.locale,
    };
    let points = sel.points(config);
    let run = l.run_in(lesson.locale);
    unknown_column(&run, &view, region)?;
    let rendered = markdown::table(&run, &view, &|t, r| sel.keeps(config, &points, t, r))
        .map_err(|m| error(region.marker, m))?;
    if rendered.lines().count() <= 2 {
        return Err(error(region.marker, "the filters select no row"));
    }
    let written = &lesson.text[region.content.clone()];
    let pass = normalized(written) == normalized(&rendered);
    let diff = (!pass).then(|| {
        similar::TextDiff::from_lines(
            &format!("{}\n", normalized(written)),
            &format!("{}\n", normalized(&rendered)),
        )
        .unified_diff()
        .context_radius(2)
        .header("written", "run")
        .to_string()
    });
    Ok(Outcome {
        pos: region.at,
        name: region_name(region),
        pass,
        written: written.to_string(),
        run: rendered.clone(),
        precision: None,
        interval: None,
        diff,
        replacement: Some(if pass { written.to_string() } else { rendered }),
        image: None,
        locale: lesson.locale,
    })
}

/// A table's column that is no column of its rows and no parameter, refused with the
/// nearest name first (the table itself would list the valid ones only).
fn unknown_column(run: &Run<'_>, view: &TableView, region: &Region) -> Result<(), LessonError> {
    let source = match (view.entity, &run.results.entities) {
        (true, Some(entities)) => entities,
        _ => &run.results.results,
    };
    let known = |c: &String| source.schema.find(c).is_some() || run.config.key_index(c).is_some();
    let Some(c) = view.columns.iter().flatten().find(|c| !known(c)) else {
        return Ok(());
    };
    let valid = markdown::default_columns(run, view.entity);
    let mut near: Vec<&str> = valid.iter().map(String::as_str).collect();
    near.extend(run.config.key_names());
    Err(error(
        region.marker,
        format!(
            "`{c}` is not a column of {} or a parameter{}; valid: {}",
            if view.entity {
                "entities.csv"
            } else {
                "results.csv"
            },
            crate::suggest::did_you_mean(c, &near),
            valid.join(", ")
        ),
    ))
}

pub(super) fn chart_block(
    lesson: &Lesson,
    file: &Path,
    region: &Region,
    chart: &str,
    l: &Loaded,
) -> Result<Outcome, LessonError> {
    let content = &lesson.text[region.content.clone()];
    // The image: `![alt](path)`.
    let path = content
        .find("](")
        .and_then(|i| {
            content[i + 2..]
                .find(')')
                .map(|j| &content[i + 2..i + 2 + j])
        })
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| {
            error(
                region.at,
                "a chart block holds an image: `![text](path.svg)` or `.png`",
            )
        })?;
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    if ext != "svg" && ext != "png" {
        return Err(error(
            region.at,
            format!("`{path}`: the image is an .svg or a .png"),
        ));
    }
    let run = l.run_in(lesson.locale);
    let mut charts = crate::export::chart::prepare(&run)
        .map_err(|e| error(region.marker, e.to_string()))?
        .files;
    if !charts.iter().any(|c| c.name == chart)
        && let Some(trace) = trace_chart(region, chart, l, lesson.locale)?
    {
        charts.push(trace);
    }
    let Some(prepared) = charts.iter().find(|c| c.name == chart) else {
        let names: Vec<&str> = charts.iter().map(|c| c.name.as_str()).collect();
        // The nearest of its charts, and of the trace charts of its claims over executions
        // (`trase-2`: `trace-2`).
        let traces: Vec<String> = (l.config.claims.iter().enumerate())
            .filter(|(_, c)| c.over.is_some())
            .map(|(i, _)| format!("trace-{}", i + 1))
            .collect();
        let candidates: Vec<&str> = (names.iter().copied())
            .chain(traces.iter().map(String::as_str))
            .collect();
        let near = crate::suggest::did_you_mean(chart, &candidates);
        const TRACE: &str = "`trace-N`, the execution deciding its claim N over executions";
        return Err(error(
            region.marker,
            if names.is_empty() {
                format!(
                    "`{}` draws no chart `{chart}`{near}: it has no charts, only {TRACE}",
                    region.config
                )
            } else {
                format!(
                    "`{}` draws no chart `{chart}`{near}; its charts: {} (and {TRACE})",
                    region.config,
                    names.join(", ")
                )
            },
        ));
    };
    let target = file.parent().unwrap_or(Path::new(".")).join(path);
    let bytes = if ext == "svg" {
        prepared
            .svg()
            .map_err(|e| error(region.marker, e.to_string()))?
            .0
            .into_bytes()
    } else {
        prepared
            .png()
            .map_err(|e| error(region.marker, e.to_string()))?
    };
    // Capped: a chart bigger than this differs anyway, and a device never ends.
    let on_disk = crate::input::read_capped(&target, 1 << 28).ok();
    let pass = on_disk.as_deref() == Some(bytes.as_slice());
    Ok(Outcome {
        pos: region.at,
        name: region_name(region),
        pass,
        written: path.to_string(),
        run: match on_disk {
            None => format!("{path} is missing"),
            Some(_) if pass => path.to_string(),
            Some(_) => format!("{path} differs from the chart the run draws"),
        },
        precision: None,
        interval: None,
        diff: None,
        replacement: None,
        image: Some((target, bytes)),
        locale: lesson.locale,
    })
}

/// The config's exploration, made once for every region that reads it (as `report`
/// explores it).
pub(super) fn explorations<'l>(
    region: &Region,
    l: &'l Loaded,
) -> Result<&'l [coordsim_model::Exploration], LessonError> {
    let config = &l.config;
    l.explored
        .get_or_init(|| {
            let limits = crate::runner::explore::default_limits();
            crate::check::explore_showing(config, &limits).map_err(|e| e.to_string())
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(|e| error(region.marker, e.clone()))
}

/// The config's exploration with the schedulers' graph at every point with a free order:
/// [`explorations`] when it kept one there (or has no free order), else the config explored
/// again keeping it (once, for every region that asks).
pub(super) fn explorations_with_schedulers<'l>(
    region: &Region,
    l: &'l Loaded,
) -> Result<&'l [coordsim_model::Exploration], LessonError> {
    let explored = explorations(region, l)?;
    let missing = |e: &coordsim_model::Exploration| {
        e.ordered && e.bounded.is_none() && e.schedulers.is_none()
    };
    if !explored.iter().any(missing) {
        return Ok(explored);
    }
    let config = &l.config;
    l.explored_schedulers
        .get_or_init(|| {
            let limits = coordsim_model::ExploreLimits {
                keep_schedulers: true,
                ..crate::runner::explore::default_limits()
            };
            crate::runner::explore::explore_config(config, config.seed, &limits)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(|e| error(region.marker, e.clone()))
}

/// `trace-N`: the trace chart of the execution that decides claim N (over executions) of
/// the config, explored as `report` explores it; `None` when `chart` is no such name.
fn trace_chart(
    region: &Region,
    chart: &str,
    l: &Loaded,
    locale: Locale,
) -> Result<Option<crate::export::chart::Prepared>, LessonError> {
    let Some(n) = chart
        .strip_prefix("trace-")
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return Ok(None);
    };
    let config = &l.config;
    let count = config.claims.len();
    if n == 0 || n > count {
        return Err(error(
            region.marker,
            format!(
                "`{chart}`: `{}` has no claim {n} ({}; claims count from 1)",
                region.config,
                match count {
                    0 => "it has no claims".to_string(),
                    1 => "it has 1 claim".to_string(),
                    _ => format!("it has {count}"),
                }
            ),
        ));
    }
    let claim = n.checked_sub(1).and_then(|i| config.claims.get(i));
    let Some((claim, holds)) = claim.and_then(|c| c.over.map(|h| (c, h))) else {
        return Err(error(
            region.marker,
            format!(
                "`{chart}`: claim {n} of `{}` is not a claim over executions (`over = \"executions\"`); a trace chart shows the execution that decides one",
                region.config
            ),
        ));
    };
    let explored = explorations(region, l)?;
    let (_, decides) = crate::check::over_executions(config, explored, claim, holds);
    let Some(shown) = decides else {
        return Err(error(
            region.marker,
            format!(
                "`{chart}`: no single execution decides claim {n} (a `min` / `max`, or an `always` / `never` that holds): there is no trace to draw"
            ),
        ));
    };
    let steps = shown.trace(explored);
    // Drawn in the lesson's words when the config speaks its locale.
    let shown_in = l.config_in(locale);
    Ok(Some(crate::export::explore::trace_chart(
        shown_in,
        n,
        &shown_in.claims[n - 1].name,
        steps,
        crate::export::explore::scheduler_line(shown_in, n - 1, explored, shown),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_written_digits_set_the_precision() {
        // 206,5 holds 206.45 … 206.55 (half a unit of the last digit), not 206.56.
        assert!(within_precision(206.55, 206.5, 1));
        assert!(within_precision(206.45, 206.5, 1));
        assert!(!within_precision(206.56, 206.5, 1));
        assert!(!within_precision(206.44, 206.5, 1));
        // 45 holds 44.5 … 45.5.
        assert!(within_precision(45.5, 45.0, 0));
        assert!(!within_precision(45.51, 45.0, 0));
    }

    #[test]
    fn numbers_are_found_with_their_unit_and_percent_sign() {
        assert_eq!(split_number("%88,8", Locale::Tr), Some(("%", "88,8", "")));
        assert_eq!(
            split_number("206,5 ms", Locale::Tr),
            Some(("", "206,5", " ms"))
        );
        assert_eq!(split_number("88.8%", Locale::En), Some(("", "88.8", "%")));
        assert_eq!(split_number("-3 tur", Locale::Tr), Some(("", "-3", " tur")));
        assert_eq!(split_number("45.", Locale::En), Some(("", "45", ".")));
        assert_eq!(split_number("yok", Locale::Tr), None);
        assert_eq!(write_number(206.55, 1, Locale::Tr), "206,6");
        assert_eq!(write_number(-0.01, 1, Locale::En), "0.0");
        assert_eq!(write_number(12345.0, 0, Locale::Tr), "12.345");
    }
}

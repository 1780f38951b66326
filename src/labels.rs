//! What a reader sees labelled: the names and text values a config's tables and charts show
//! without a `[labels]` entry, the warning a Turkish config gets for each, and the check that
//! every `[labels]` key a run must show matches something.

use coordsim_model::Value;

use crate::config::Config;
use crate::results::Results;
use crate::source::{ConfigError, Span};

/// The text values its charts show as they are (categories on an axis, a swept
/// setting in a legend or title), each once with where it is written: a swept value at
/// its place in `[sweep]`, a fixed one at its `[params]` value (a default at `model`).
/// A value with a `[labels]` entry is not one of them.
pub(crate) fn chart_values(config: &Config) -> Vec<(String, String, Span)> {
    let mut out: Vec<(String, String, Span)> = Vec::new();
    let mut add = |value: &str, chart: &str, span: Span| {
        if !config.has_label(value) && !out.iter().any(|(v, _, _)| v == value) {
            out.push((value.to_string(), chart.to_string(), span));
        }
    };
    for chart in &config.charts {
        // Swept values: categories when x, else in legends and (timelines) titles.
        for axis in &config.axes {
            for (v, span) in axis.values.iter().zip(&axis.spans) {
                match v {
                    Value::Str(t) => add(t, &chart.name, span.clone()),
                    Value::Bool(b) => {
                        add(if *b { "true" } else { "false" }, &chart.name, span.clone())
                    }
                    _ => {}
                }
            }
        }
        // A fixed text parameter as x: its one category.
        if let Some(i) = config.key_index(&chart.x)
            && !config.axes.iter().any(|a| a.param == i)
            && let Value::Str(t) = &config.base[i]
        {
            let span = config.written_at(i);
            add(t, &chart.name, span);
        }
    }
    out
}

/// What a run of it should say before it writes: in a Turkish config, every text value
/// a chart shows unlabelled (an English choice such as `consumer` in a Turkish lesson),
/// as `FILE:LINE:COL: …` naming the value and the `[labels]` line to add.
pub(crate) fn warnings(config: &Config) -> Vec<String> {
    if config.locale != crate::locale::Locale::Tr {
        return Vec::new();
    }
    chart_values(config)
        .into_iter()
        .map(|(value, chart, span)| {
            config.source
                .error(
                    &span,
                    format!(
                        "the chart `{chart}` shows `{value}` as it is in a Turkish config (locale = \"tr\"); label it: add `{value} = \"…\"` to [labels]"
                    ),
                )
                .to_string()
        })
        .collect()
}

/// A `[labels]` key for a value only a run shows (an entity's name, a text cell) must
/// match one, or it is a misspelling that would leave the output unlabelled.
pub fn check_value_labels(config: &Config, results: &Results) -> Result<(), ConfigError> {
    if config.value_labels.is_empty() {
        return Ok(());
    }
    let tables = std::iter::once(&results.results).chain(results.entities.as_ref());
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for table in tables {
        for row in &table.rows {
            for cell in row.cells() {
                if let coordsim_model::Cell::Text(t) = cell {
                    seen.insert(t.clone());
                }
            }
        }
    }
    // A timeline's lanes and their levels' categories are named by the run too: a
    // resource's lane (`jobs`) is labelled as an actor's is.
    for (_, lanes) in &results.lanes {
        for lane in lanes.resources().iter().chain(lanes.lanes()) {
            seen.insert(lane.name.clone());
            seen.extend(lane.categories().iter().cloned());
        }
    }
    // A chart's reference lines are named in the config (`y_expr`'s keys): their legends
    // are labelled as a column's are, a two-language config's per locale.
    for chart in &config.charts {
        seen.extend(chart.y_expr.iter().map(|(name, _)| name.clone()));
    }
    match config.value_labels.iter().find(|(k, _)| !seen.contains(k)) {
        None => Ok(()),
        Some((key, span)) => {
            // The model's timeline kinds, when it draws timelines: labelled by their names.
            let kind_names: Vec<&str> = match config.plan.model.timeline() {
                Some(style) => (style.spans.iter().map(|k| k.name))
                    .chain(style.marks.iter().map(|k| k.name))
                    .chain(style.levels.iter().map(|k| k.name))
                    .collect(),
                None => Vec::new(),
            };
            let kinds = if kind_names.is_empty() {
                String::new()
            } else {
                format!("; its timeline kinds: {}", kind_names.join(", "))
            };
            // The nearest of every name a label may be for: what the run shows, the
            // columns, the parameters, the timeline kinds, the built-in words.
            let model = &config.plan.model;
            let words = crate::locale::Text::ALL.map(|t| t.key());
            let mut names: Vec<&str> = seen.iter().map(String::as_str).collect();
            names.sort_unstable();
            names.extend(model.metrics().iter().map(|c| c.name));
            names.extend(model.entity_columns().iter().map(|c| c.name));
            names.extend(config.key_names());
            names.extend(kind_names.iter().copied());
            names.extend(words.iter().copied());
            Err(config.source.error(
                span,
                format!(
                    "`{key}`{} in [labels] is not a column, parameter value, timeline kind, entity, text value of this run or `y_expr` line of a chart; label one of those, or a built-in word: {}{kinds}",
                    crate::suggest::did_you_mean(key, &names),
                    words.join(", ")
                ),
            ))
        }
    }
}

/// The raw names a reader would see in this config's charts alone (axes, legends, titles).
pub fn unlabelled_in_charts(config: &Config) -> Vec<String> {
    missing_labels(config, chart_names(config))
}

/// The raw names a reader would see in this config's `table.md` and charts: columns,
/// swept parameters and their text values, shown with no `[labels]` entry. A lesson in
/// another language than the names (Turkish, say) labels every one; a test holds the
/// shipped Turkish configs to that.
pub fn unlabelled(config: &Config) -> Vec<String> {
    let mut shown = config.table.columns.clone().unwrap_or_else(|| {
        let mut c: Vec<String> = config.axes.iter().map(|a| a.key.clone()).collect();
        if config.table.entity {
            c.push("entity".into());
            c.extend(
                config
                    .model
                    .entity_columns()
                    .iter()
                    .map(|e| e.name.to_string()),
            );
        } else {
            c.extend(config.model.metrics().iter().map(|m| m.name.to_string()));
        }
        c
    });
    shown.extend(chart_names(config));
    // The text values charts show (a fixed choice as a chart's one category, too).
    shown.extend(chart_values(config).into_iter().map(|(v, _, _)| v));
    // Swept parameters name titles and legends, with their text values.
    for axis in &config.axes {
        shown.push(axis.key.clone());
        for v in &axis.values {
            if let coordsim_model::Value::Str(s) = v {
                shown.push(s.clone());
            }
        }
    }
    missing_labels(config, shown)
}

/// The names the charts show: x (unless `x_label` replaces it), every y (the legend names
/// it), `mark_x`, and the swept parameters that split a chart's series.
fn chart_names(config: &Config) -> Vec<String> {
    let mut shown = Vec::new();
    for chart in &config.charts {
        if !chart.x.is_empty() && chart.look.x_label.is_none() {
            shown.push(chart.x.clone());
        }
        shown.extend(chart.y.iter().cloned());
        shown.extend(chart.mark_x.iter().cloned());
        shown.extend(
            config
                .axes
                .iter()
                .filter(|a| a.key != chart.x)
                .map(|a| a.key.clone()),
        );
    }
    shown
}

/// The names of `shown` without a `[labels]` entry, sorted, once each.
fn missing_labels(config: &Config, shown: Vec<String>) -> Vec<String> {
    let mut missing: Vec<String> = shown.into_iter().filter(|n| !config.has_label(n)).collect();
    missing.sort();
    missing.dedup();
    missing
}

/// Prints a config's warnings (`warning: FILE:LINE:COL: …`) on stderr; a closed stderr
/// stops the messages, not the run.
pub(crate) fn print_warnings(config: &crate::config::Config) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    for w in warnings(config) {
        let _ = writeln!(stderr, "warning: {w}");
    }
}

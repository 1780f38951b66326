//! `coordsim models`: what models exist, what they take and emit, and a starter config.

use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use anyhow::bail;
use coordsim_model::{ModelDef, Registry, unit_of};

use super::cli::ModelsArgs;

/// Lists models, describes one, or prints its starter config.
pub(crate) fn models(args: ModelsArgs, registry: &Registry) -> anyhow::Result<ExitCode> {
    let text = match &args.model {
        None if args.markdown => {
            let mut text = reference(registry.models().iter().map(|m| &**m));
            for c in registry.composers() {
                let _ = writeln!(
                    text,
                    "\n## {}\n\n{}. Its parameters and columns are the ones its config names: see [{}]({}).",
                    c.name(),
                    c.summary(),
                    c.guide(),
                    c.guide().strip_prefix("docs/").unwrap_or(c.guide())
                );
            }
            text
        }
        None => list(registry),
        Some(name) => {
            if let Some(c) = registry.composer(name) {
                let text = if args.config {
                    c.starter().to_string()
                } else {
                    format!(
                        "{name}: {}\n\nIts parameters and metrics are the ones its config names: see {}, or `coordsim models {name} --config` for a config that runs as it is.\n",
                        c.summary(),
                        c.guide()
                    )
                };
                crate::print::stdout().write_all(text.as_bytes())?;
                return Ok(ExitCode::SUCCESS);
            }
            let Some(model) = registry.find(name) else {
                bail!(
                    "unknown model `{name}`; models: {}",
                    registry.names().join(", ")
                );
            };
            let model = &**model;
            if args.markdown {
                reference(std::iter::once(model))
            } else if args.config {
                starter_config(model)
            } else {
                describe(model)
            }
        }
    };
    crate::print::stdout().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn list(registry: &Registry) -> String {
    let mut out = String::new();
    for m in registry.models() {
        let _ = writeln!(out, "{:<22} {}", m.name(), m.summary());
    }
    for c in registry.composers() {
        let _ = writeln!(out, "{:<22} {} ({})", c.name(), c.summary(), c.guide());
    }
    out.push_str("\n`coordsim models NAME` shows a model's parameters and metrics; add --config for a starter config.\n");
    out
}

fn describe(model: &dyn ModelDef) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}\n\nparameters:", model.name(), model.summary());
    let _ = writeln!(
        out,
        "  {:<22} {:<10} {:<14} {:<5} meaning",
        "key", "type", "default", "unit"
    );
    for p in model.params() {
        let _ = writeln!(
            out,
            "  {:<22} {:<10} {:<14} {:<5} {}",
            p.key,
            p.kind.short(),
            short_default(&(p.default)()),
            p.unit(),
            with_choices(p)
        );
    }
    let _ = writeln!(out, "\nmetrics (results.csv columns, in order):");
    list_columns(&mut out, model.metrics());
    if !model.entity_columns().is_empty() {
        let _ = writeln!(out, "\nentity columns (entities.csv):");
        list_columns(&mut out, model.entity_columns());
    }
    if !model.distributions().is_empty() {
        let _ = writeln!(
            out,
            "\ndistributions (per-request samples for cdf and histogram charts):"
        );
        for d in model.distributions() {
            let _ = writeln!(out, "  {:<22} {:<5} {}", d.name, unit_of(d.name), d.meaning);
        }
    }
    out
}

/// One line per column: name, unit, meaning.
fn list_columns(out: &mut String, columns: &[coordsim_model::ColumnSpec]) {
    for c in columns {
        let _ = writeln!(
            out,
            "  {:<22} {:<5} {}",
            c.name,
            unit_of(c.name),
            c.meaning.trim()
        );
    }
}

/// A default short enough for the table; long lists are in the starter config.
fn short_default(value: &coordsim_model::Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 14 {
        text
    } else {
        "(--config)".to_string()
    }
}

fn with_choices(p: &coordsim_model::ParamSpec) -> String {
    match p.kind {
        coordsim_model::Kind::Choice(_)
        | coordsim_model::Kind::Tables(_)
        | coordsim_model::Kind::Pairs => {
            format!("{} ({})", p.meaning.trim(), p.kind)
        }
        _ => p.meaning.trim().to_string(),
    }
}

/// A config with every parameter at its default and commented examples of the rest; `run`
/// accepts it as it is.
pub(crate) fn starter_config(model: &dyn ModelDef) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# coordsim config for `{}`: {}",
        model.name(),
        model.summary()
    );
    let _ = writeln!(
        out,
        "# Every parameter is at its default (the lesson's value); edit what you need."
    );
    let _ = writeln!(out, "model = \"{}\"", model.name());
    let _ = writeln!(out, "title = \"{}\"", model.name());
    let _ = writeln!(
        out,
        "seed = 0          # master seed: replication 0 runs with it, r > 0 with a SplitMix64 mix of (seed, r)"
    );
    let _ = writeln!(out, "replications = 1  # runs per sweep point\n");
    let _ = writeln!(out, "[params]");
    for p in model.params() {
        let unit = match p.unit() {
            "" => String::new(),
            u => format!(" [{u}]"),
        };
        let _ = writeln!(out, "# {}{unit} ({})", p.meaning.trim(), p.kind);
        match (p.default)() {
            coordsim_model::Value::List(items)
                if items
                    .iter()
                    .any(|i| matches!(i, coordsim_model::Value::Table(_))) =>
            {
                let _ = writeln!(out, "{} = [", p.key);
                for item in items {
                    let _ = writeln!(out, "  {item},");
                }
                let _ = writeln!(out, "]");
            }
            value => {
                let _ = writeln!(out, "{} = {value}", p.key);
            }
        }
    }
    let first = model.params().first().map_or("", |p| p.key);
    let metric = model
        .metrics()
        .iter()
        .find(|m| m.numeric())
        .map_or("", |m| m.name);
    let _ = writeln!(
        out,
        "\n# Sweep any parameter (move it out of [params] first); first key varies slowest:"
    );
    let _ = writeln!(out, "# [sweep]");
    let _ = writeln!(
        out,
        "# {first} = [1, 2, 4]            # or {{ from = 1, to = 8, step = 1 }}"
    );
    let _ = writeln!(out, "\n# Claims, checked by `coordsim check`:");
    let _ = writeln!(out, "# [[claim]]");
    let _ = writeln!(out, "# metric = \"{metric}\"");
    let _ = writeln!(
        out,
        "# expect = 0          # a number, or an expression such as \"2 * {first}\""
    );
    let _ = writeln!(out, "# tolerance = 0.05    # or band = [0.9, 1.1]");
    let _ = writeln!(out, "\n# Charts (default: the model's own):");
    let _ = writeln!(out, "# [[chart]]");
    let _ = writeln!(out, "# name = \"my-chart\"");
    let _ = writeln!(out, "# x = \"{first}\"");
    let _ = writeln!(out, "# y = [\"{metric}\"]");
    let _ = writeln!(
        out,
        "# kind = \"line\"      # line | bar | cdf | histogram | runs_cdf | timeline"
    );
    let _ = writeln!(out, "\n# Column labels for tables and charts:");
    let _ = writeln!(out, "# [labels]");
    let _ = writeln!(out, "# {metric} = \"…\"");
    out
}

/// The model reference as Markdown: every model's parameters (key, type, default, unit,
/// meaning), metrics, entity columns, default charts and timeline kinds, generated from the
/// declarations (`docs/models.md` is this output; a test fails when it is stale).
pub(crate) fn reference<'a>(models: impl Iterator<Item = &'a dyn ModelDef>) -> String {
    let models: Vec<&dyn ModelDef> = models.collect();
    let mut out = String::from(
        "# Model reference\n\n<!-- Generated by `coordsim models --markdown`; do not edit. \
         Regenerate: cargo run -- models --markdown > docs/models.md -->\n\n\
         Units come from the names: `_ms` is milliseconds, `_pct` percent, `_per_s` per second.\n\n",
    );
    for m in &models {
        let _ = writeln!(out, "- [`{0}`](#{0}): {1}", m.name(), m.summary());
    }
    for m in models {
        let _ = writeln!(out, "\n## {}\n\n{}\n", m.name(), m.summary());
        let _ = writeln!(out, "### Parameters\n");
        let _ = writeln!(
            out,
            "| key | type | default | unit | meaning |\n|---|---|---|---|---|"
        );
        for p in m.params() {
            let _ = writeln!(
                out,
                "| `{}` | {} | `{}` | {} | {} |",
                p.key,
                cell(&p.kind.to_string()),
                cell(&(p.default)().to_string()),
                p.unit(),
                cell(p.meaning.trim())
            );
        }
        let _ = writeln!(out, "\n### Metrics (`results.csv`, in order)\n");
        columns_table(&mut out, m.metrics());
        if !m.entity_columns().is_empty() {
            let _ = writeln!(out, "\n### Entity columns (`entities.csv`, in order)\n");
            columns_table(&mut out, m.entity_columns());
        }
        let charts = m.charts();
        if !charts.is_empty() {
            let _ = writeln!(out, "\n### Default charts\n");
            for c in charts {
                let y =
                    c.y.iter()
                        .map(|y| format!("`{y}`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                let against = if c.x.is_empty() {
                    String::new()
                } else {
                    format!(" against `{}`", c.x)
                };
                let y = if y.is_empty() {
                    String::new()
                } else {
                    format!(" of {y}")
                };
                let _ = writeln!(out, "- `{}`: {}{y}{against}", c.name, c.kind);
            }
        }
        if !m.tie_rules().is_empty() {
            let rules: Vec<String> = m.tie_rules().iter().map(|r| format!("`{r}`")).collect();
            let _ = writeln!(
                out,
                "\nTie rules (how simultaneous events are ordered; `check --ties` tries the others): {}.",
                rules.join(", ")
            );
        }
        if !m.distributions().is_empty() {
            let _ = writeln!(
                out,
                "\n### Distributions\n\nPer-request samples for `kind = \"cdf\"` and `\"histogram\"` charts:\n"
            );
            for d in m.distributions() {
                let _ = writeln!(out, "- `{}`: {}", d.name, d.meaning);
            }
        }
        if let Some(style) = m.timeline() {
            let _ = writeln!(out, "\n### Timeline lanes\n");
            for s in style.spans {
                let _ = writeln!(out, "- span `{}`: {} ({})", s.name, s.label, s.label_tr);
            }
            for k in style.marks {
                let _ = writeln!(out, "- mark `{}`: {} ({})", k.name, k.label, k.label_tr);
            }
            for k in style.levels {
                let _ = writeln!(out, "- level `{}`: {} ({})", k.name, k.label, k.label_tr);
            }
        }
    }
    out
}

fn columns_table(out: &mut String, columns: &[coordsim_model::ColumnSpec]) {
    let _ = writeln!(out, "| column | type | unit | meaning |\n|---|---|---|---|");
    for c in columns {
        let ty = match c.ty {
            coordsim_model::ColumnType::Count => "integer",
            coordsim_model::ColumnType::Float => "number",
            coordsim_model::ColumnType::Flag => "0 / 1",
            coordsim_model::ColumnType::Text => "text",
        };
        let _ = writeln!(
            out,
            "| `{}` | {ty} | {} | {} |",
            c.name,
            unit_of(c.name),
            cell(c.meaning.trim())
        );
    }
}

/// Text for a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

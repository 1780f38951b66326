//! An exploration's outputs: `explore.md` (what was explored, the distinct outcomes by the
//! metrics that differ between them, and the execution that decides each claim, step by
//! step), `outcomes.csv` (every outcome, every metric) and `trace-N.csv` (the N-th claim's
//! deciding execution).

use std::fmt::Write as _;
use std::path::Path;

use coordsim_model::Exploration;
use coordsim_model::explore::TraceStep;

use crate::config::Config;
use crate::export::chart::{Drawing, Prepared, TraceChart, tick};
use crate::export::write_atomic;
use crate::locale::Text;

/// Writes the outputs into `dir`; gives back `explore.md`'s text. `decided` has an entry
/// per claim of the config, in order: its name and the (point, outcome) that decides it
/// (`None` when none does, or the claim is over runs), so claim N's files are `trace-N…`.
/// Nothing written names the folder it is in (a report is the same wherever it is
/// written): a path in it is relative to it.
pub fn write(
    dir: &Path,
    config: &Config,
    explored: &[Exploration],
    decided: &[(String, Option<(usize, usize)>)],
) -> anyhow::Result<String> {
    let metrics = config.model.metrics();
    let mut md = format!("# {} — every execution\n\n", config.title);
    let mut csv = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["point".to_string(), "outcome".into(), "executions".into()];
    header.push("probability".into());
    header.extend(metrics.iter().map(|m| m.name.to_string()));
    csv.write_record(&header)?;
    for (point, e) in explored.iter().enumerate() {
        let at = config.point_values(point);
        let named: Vec<String> = config
            .axes
            .iter()
            .map(|a| format!("{} = {}", config.key_names()[a.param], at[a.param]))
            .collect();
        if !named.is_empty() {
            writeln!(md, "## {}\n", named.join(", "))?;
        }
        writeln!(
            md,
            "{} states, {} transitions, {} execution{}{}, {} distinct outcome{}, the longest {} event{}: {}.\n",
            e.states,
            e.transitions,
            e.executions,
            if e.executions == 1 { "" } else { "s" },
            if e.reduced > 0 {
                " (one order of the events that commute)"
            } else {
                ""
            },
            e.outcomes.len(),
            if e.outcomes.len() == 1 { "" } else { "s" },
            e.longest,
            if e.longest == 1 { "" } else { "s" },
            e.bounded.as_deref().unwrap_or("exhaustive"),
        )?;
        if e.outcomes.is_empty() {
            // Bounded before any execution ended: no outcome to list, no probability.
            writeln!(
                md,
                "No execution ended within the bound: no outcome to list.\n"
            )?;
            continue;
        }
        // The metrics that differ between outcomes: what the exploration tells apart.
        let differ: Vec<usize> = (0..metrics.len())
            .filter(|&i| {
                e.outcomes
                    .iter()
                    .any(|o| o.metrics[i] != e.outcomes[0].metrics[i])
            })
            .collect();
        let probability = e.outcomes.iter().all(|o| o.probability.is_some());
        let within: f64 = e.outcomes.iter().filter_map(|o| o.probability).sum();
        if probability && within < 1.0 - 1e-12 {
            writeln!(
                md,
                "The probabilities are those of the executions within the fault budget (`--max-faults`); more faults than it allows: {}.\n",
                rounded(1.0 - within)
            )?;
        }
        if differ.len() < metrics.len() {
            let what = if e.outcomes.len() == 1 {
                "One outcome: every execution ends with the same metrics"
            } else {
                "The columns are the metrics that differ between outcomes"
            };
            writeln!(md, "{what} (`outcomes.csv` has every metric).\n")?;
        }
        let mut cols = vec!["outcome", "executions"];
        if probability {
            cols.push("probability");
        }
        cols.extend(differ.iter().map(|&i| metrics[i].name));
        writeln!(md, "| {} |", cols.join(" | "))?;
        writeln!(md, "|{}", " --- |".repeat(cols.len()))?;
        for (k, o) in e.outcomes.iter().enumerate() {
            let mut cells = vec![(k + 1).to_string(), o.executions.to_string()];
            if probability {
                cells.push(o.probability.map_or(String::new(), rounded));
            }
            cells.extend(differ.iter().map(|&i| o.metrics[i].to_string()));
            writeln!(md, "| {} |", cells.join(" | "))?;
            let mut record = vec![
                point.to_string(),
                (k + 1).to_string(),
                o.executions.to_string(),
            ];
            record.push(o.probability.map_or(String::new(), |p| p.to_string()));
            record.extend(o.metrics.iter().map(|c| c.to_string()));
            csv.write_record(&record)?;
        }
        md.push('\n');
    }
    write_atomic(&dir.join("outcomes.csv"), &csv.into_inner()?)?;
    for (n, (claim, decides)) in decided.iter().enumerate() {
        let Some((point, k)) = *decides else {
            continue;
        };
        let outcome = &explored[point].outcomes[k];
        let trace = &outcome.trace;
        writeln!(
            md,
            "## {claim}: outcome {} (its shortest execution, {} events)\n",
            k + 1,
            outcome.schedule.events.len()
        )?;
        // The steps in their order; a timeline too when time passes along them.
        let chart = trace_chart(config, n + 1, claim, trace);
        chart.write(dir)?;
        writeln!(md, "![{claim}](trace-{}.svg)\n", n + 1)?;
        let timed = trace.windows(2).any(|w| w[0].time_ms != w[1].time_ms);
        if timed && dir.join(format!("trace-{}/timeline.svg", n + 1)).exists() {
            writeln!(md, "![{claim}](trace-{}/timeline.svg)\n", n + 1)?;
        }
        md.push_str(&trace_table(trace, config.locale));
        md.push('\n');
        write_atomic(
            &dir.join(format!("trace-{}.csv", n + 1)),
            &trace_csv(trace)?,
        )?;
        let file = format!("schedule-{}.toml", n + 1);
        let about = format!(
            "The execution that decides the claim \"{claim}\" of {} (outcome {} of point {point}, its shortest)",
            config.source.name,
            k + 1
        );
        let text = crate::schedule::text(config, point, &outcome.schedule, &about);
        write_atomic(&dir.join(&file), text.as_bytes())?;
        writeln!(
            md,
            "Its choices: [{file}]({file}); run it again, with every output a run has: `coordsim run {} --schedule DIR/{file}` (DIR: this folder).\n",
            config.source.name,
        )?;
    }
    write_atomic(&dir.join("explore.md"), md.as_bytes())?;
    Ok(md)
}

/// The trace chart of claim `n` (from 1), named `claim`, deciding execution `steps`, as
/// `config` words it: `trace-N`, its headers and notes in the config's locale.
pub fn trace_chart(config: &Config, n: usize, claim: &str, steps: &[TraceStep]) -> Prepared {
    let (name, title) = (format!("trace-{n}"), format!("{}: {claim}", config.title));
    let mut notes = Vec::new();
    if let Some(first) = steps.first()
        && steps.iter().all(|s| s.time_ms == first.time_ms)
    {
        notes.push(
            config
                .text(Text::TraceInstantNote)
                .replace("{time}", &tick(first.time_ms, config.locale)),
        );
    }
    let labels = (
        config.text(Text::TraceStepHeader).to_string(),
        config.text(Text::VirtualTimeAxis).to_string(),
        config.text(Text::TraceStepsNote).to_string(),
    );
    Prepared {
        name,
        what: Drawing::Trace(Box::new(TraceChart::new(
            title,
            steps,
            labels,
            notes,
            config.locale,
        ))),
    }
}

/// A trace as a Markdown table.
fn trace_table(trace: &[TraceStep], locale: crate::locale::Locale) -> String {
    let mut md = String::from(
        "| step | time_ms | actor | action | choice |\n| --- | --- | --- | --- | --- |\n",
    );
    for (i, s) in trace.iter().enumerate() {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            i + 1,
            s.time_ms,
            s.actor,
            if locale == crate::locale::Locale::Tr {
                &s.action_tr
            } else {
                &s.action
            },
            if locale == crate::locale::Locale::Tr {
                &s.choice_tr
            } else {
                &s.choice
            },
        );
    }
    md
}

/// A trace as CSV.
fn trace_csv(trace: &[TraceStep]) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["step", "time_ms", "actor", "action", "choice"])?;
    for (i, s) in trace.iter().enumerate() {
        w.write_record([
            (i + 1).to_string(),
            s.time_ms.to_string(),
            s.actor.clone(),
            s.action.clone(),
            s.choice.clone(),
        ])?;
    }
    Ok(w.into_inner()?)
}

/// A probability to 12 decimals, trailing zeros dropped (0.16, not 0.16000000000000003).
pub fn rounded(p: f64) -> String {
    let s = format!("{p:.12}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

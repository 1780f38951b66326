//! An exploration's outputs: `explore.md` (what was explored, the distinct outcomes by the
//! metrics that differ between them, and the execution that decides each claim, step by
//! step), `outcomes.csv` (every outcome, every metric) and `trace-N.csv` (the N-th claim's
//! deciding execution).

use std::fmt::Write as _;
use std::path::Path;

use coordsim_model::Exploration;
use coordsim_model::explore::TraceStep;

use crate::config::Config;
use crate::export::write_atomic;

/// Writes the outputs into `dir`; gives back `explore.md`'s text. `decided` holds each
/// claim over executions: its name and the (point, outcome) that decides it, if any.
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
            "{} states, {} transitions, {} executions{}, {} distinct outcomes, the longest {} events: {}.\n",
            e.states,
            e.transitions,
            e.executions,
            if e.reduced > 0 {
                " (one order of the events that commute)"
            } else {
                ""
            },
            e.outcomes.len(),
            e.longest,
            e.bounded.as_deref().unwrap_or("exhaustive"),
        )?;
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
        let trace = &explored[point].outcomes[k].trace;
        writeln!(
            md,
            "## {claim}: outcome {} (its shortest execution, {} events)\n",
            k + 1,
            trace.len()
        )?;
        md.push_str(&trace_table(trace));
        md.push('\n');
        write_atomic(
            &dir.join(format!("trace-{}.csv", n + 1)),
            &trace_csv(trace)?,
        )?;
    }
    write_atomic(&dir.join("explore.md"), md.as_bytes())?;
    Ok(md)
}

/// A trace as a Markdown table.
fn trace_table(trace: &[TraceStep]) -> String {
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
            s.action,
            s.choice
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
fn rounded(p: f64) -> String {
    let s = format!("{p:.12}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

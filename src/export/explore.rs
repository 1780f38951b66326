//! An exploration's outputs: `explore.md` (what was explored, the distinct outcomes by the
//! metrics that differ between them, and the execution that decides each claim, step by
//! step), `outcomes.csv` (every outcome, every metric) and `trace-N.csv` (the N-th claim's
//! deciding execution).

use std::fmt::Write as _;
use std::path::Path;

use coordsim_model::explore::TraceStep;
use coordsim_model::{Bound, Exploration, Kept, Reached, SymmetryNote};

use crate::config::Config;
use crate::export::chart::{Drawing, Prepared, TraceChart, tick};
use crate::export::markdown::escape;
use crate::export::write_atomic;
use crate::locale::Text;

mod further;

/// Writes the outputs into `dir`; gives back `explore.md`'s text. `decided` has an entry
/// per claim of the config, in order: its name and the (point, outcome) that decides it
/// (`None` when none does, or the claim is over runs), so claim N's files are `trace-N…`.
/// Nothing written names the folder it is in (a report is the same wherever it is
/// written): a path in it is relative to it.
pub(crate) fn write(
    dir: &Path,
    config: &Config,
    explored: &[Exploration],
    decided: &[(String, Option<crate::check::Shown>)],
) -> anyhow::Result<String> {
    let metrics = config.model.metrics();
    let say = Say(config.locale);
    let mut md = format!("# {}\n\n", say.heading(&config.title));
    let mut csv = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["point".to_string(), "outcome".into(), "executions".into()];
    header.push("probability".into());
    header.extend(metrics.iter().map(|m| m.name.to_string()));
    csv.write_record(&header)?;
    for (point, e) in explored.iter().enumerate() {
        let named: Vec<String> = point_named(config, point)
            .iter()
            .map(|n| escape(n))
            .collect();
        if !named.is_empty() {
            writeln!(md, "## {}\n", named.join(", "))?;
        }
        writeln!(md, "{}\n", say.summary(e))?;
        if let Some(line) = say.further(e) {
            writeln!(md, "{line}\n")?;
        }
        if let Some(line) = say.symmetry(&e.symmetry) {
            writeln!(md, "{line}\n")?;
        }
        if e.keyed {
            writeln!(md, "{}\n", say.collision(e))?;
        }
        if e.outcomes.is_empty() {
            // Bounded before any execution ended: no outcome to list, no probability.
            writeln!(
                md,
                "{}\n",
                say.pick(
                    "No execution ended within the bound: no outcome to list.",
                    "Sınır içinde hiçbir yürütme bitmedi: listelenecek sonuç yok."
                )
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
                "{}\n",
                say.pick(
                    "The probabilities are those of the executions within the fault budget (`--max-faults`); more faults than it allows: {p}.",
                    "Olasılıklar, hata bütçesi (`--max-faults`) içindeki yürütmelerinkidir; bütçeyi aşan hataların olasılığı: {p}."
                )
                .replace("{p}", &config.locale.number(&rounded(1.0 - within)))
            )?;
        }
        if differ.len() < metrics.len() {
            let what = if e.outcomes.len() == 1 {
                say.pick(
                    "One outcome: every execution ends with the same metrics (`outcomes.csv` has every metric).",
                    "Tek sonuç: her yürütme aynı ölçümlerle biter (`outcomes.csv` her ölçümü içerir).",
                )
            } else {
                say.pick(
                    "The columns are the metrics that differ between outcomes (`outcomes.csv` has every metric).",
                    "Sütunlar, sonuçlar arasında farklı olan ölçümlerdir (`outcomes.csv` her ölçümü içerir).",
                )
            };
            writeln!(md, "{what}\n")?;
        }
        if !e.counted {
            writeln!(md, "{}\n", say.uncounted())?;
        }
        let mut cols = vec![say.pick("outcome", "sonuç")];
        if e.counted {
            cols.push(say.pick("executions", "yürütme"));
        }
        if probability {
            cols.push(say.pick("probability", "olasılık"));
        }
        let labelled: Vec<String> = differ
            .iter()
            .map(|&i| escape(config.label(metrics[i].name)))
            .collect();
        cols.extend(labelled.iter().map(String::as_str));
        writeln!(md, "| {} |", cols.join(" | "))?;
        writeln!(md, "|{}", " --- |".repeat(cols.len()))?;
        for (k, o) in e.outcomes.iter().enumerate() {
            // The page's numbers in its locale (`0,16`, `1.301` in Turkish); the CSV's not.
            let number = |text: String| config.locale.number(&text);
            // A loop without end counts no executions: an outcome's cell is empty (not 0);
            // nor does a search without counts, whose page has no such column.
            let executions = if e.cycles {
                String::new()
            } else {
                number(o.executions.to_string())
            };
            let mut cells = vec![(k + 1).to_string()];
            if e.counted {
                cells.push(executions);
            }
            if probability {
                cells.push(o.probability.map_or(String::new(), |p| number(rounded(p))));
            }
            // Rounded for reading, text by its label, as `table.md` writes them.
            cells.extend(differ.iter().map(|&i| match &o.metrics[i] {
                coordsim_model::Cell::Text(t) => escape(config.label(t)),
                cell => crate::format::cell(cell, None, config.locale),
            }));
            writeln!(md, "| {} |", cells.join(" | "))?;
            let mut record = vec![
                point.to_string(),
                (k + 1).to_string(),
                if e.cycles || !e.counted {
                    String::new()
                } else {
                    o.executions.to_string()
                },
            ];
            record.push(o.probability.map_or(String::new(), |p| p.to_string()));
            record.extend(o.metrics.iter().map(|c| c.to_string()));
            csv.write_record(&record)?;
        }
        md.push('\n');
    }
    write_atomic(&dir.join("outcomes.csv"), &csv.into_inner()?)?;
    for (n, (claim, decides)) in decided.iter().enumerate() {
        if let Some(shown) = *decides {
            deciding(&mut md, dir, config, explored, (n, claim), shown)?;
        }
    }
    write_atomic(&dir.join("explore.md"), md.as_bytes())?;
    Ok(md)
}

/// The swept values of `point` as the config's table names them (its `[labels]`, its
/// locale): `key = value` each, none for a config with no sweep.
pub(crate) fn point_named(config: &Config, point: usize) -> Vec<String> {
    let at = config.point_values(point);
    config
        .axes
        .iter()
        .map(|a| {
            let key = config.key_names()[a.param];
            let value = match &at[a.param] {
                coordsim_model::Value::Str(s) if config.has_label(s) => config.label(s).into(),
                coordsim_model::Value::Str(_) => at[a.param].to_string(),
                other => {
                    crate::format::cell(&crate::format::value_cell(other), None, config.locale)
                }
            };
            format!("{} = {value}", config.label(key))
        })
        .collect()
}

/// Claim `n`'s (from 0) deciding execution, `shown`: its section of `explore.md` (its step
/// chart, its steps, how to run it again), and its files: the chart, `trace-N.csv` and
/// `schedule-N.toml`.
fn deciding(
    md: &mut String,
    dir: &Path,
    config: &Config,
    explored: &[Exploration],
    (n, claim): (usize, &str),
    shown: crate::check::Shown,
) -> anyhow::Result<()> {
    let say = Say(config.locale);
    let (point, k) = (shown.point, shown.outcome);
    let trace = shown.trace(explored);
    let events = shown.schedule(explored).events.len();
    // The claim's name as a heading's text: one line, nothing Markdown would read.
    let named = escape(claim);
    let scheduler = scheduler_line(config, n, explored, shown);
    let which = match (say.0, events) {
        (crate::locale::Locale::En, 1) if scheduler.is_some() => "outcome {k}, 1 event",
        _ if scheduler.is_some() => say.pick("outcome {k}, {n} events", "{k}. sonuç, {n} olay"),
        (crate::locale::Locale::En, 1) => "outcome {k} (its shortest execution, 1 event)",
        _ => say.pick(
            "outcome {k} (its shortest execution, {n} events)",
            "{k}. sonuç (en kısa yürütmesi, {n} olay)",
        ),
    }
    .replace("{k}", &(k + 1).to_string())
    .replace("{n}", &events.to_string());
    match &scheduler {
        Some(line) => writeln!(md, "## {named}: {line} ({which})\n")?,
        None => writeln!(md, "## {named}: {which}\n")?,
    }
    // The steps in their order; a timeline too when time passes along them.
    let chart = trace_chart(config, n + 1, claim, trace, scheduler.clone());
    chart.write(dir)?;
    writeln!(md, "![{named}](trace-{}.svg)\n", n + 1)?;
    let timed = trace.windows(2).any(|w| w[0].time_ms != w[1].time_ms);
    if timed && dir.join(format!("trace-{}/timeline.svg", n + 1)).exists() {
        writeln!(md, "![{named}](trace-{}/timeline.svg)\n", n + 1)?;
    }
    md.push_str(&trace_table(trace, config.locale));
    md.push('\n');
    write_atomic(
        &dir.join(format!("trace-{}.csv", n + 1)),
        &trace_csv(trace)?,
    )?;
    let file = format!("schedule-{}.toml", n + 1);
    let about = match &scheduler {
        // The file's comments are English whatever the locale, as its keys are.
        Some(_) => format!(
            "The execution that decides the claim \"{claim}\" of {}: {} (outcome {} of point {point})",
            config.source.name,
            scheduler_said(crate::locale::Locale::En, config, n, explored, shown)
                .unwrap_or_default(),
            k + 1
        ),
        None => format!(
            "The execution that decides the claim \"{claim}\" of {} (outcome {} of point {point}, its shortest)",
            config.source.name,
            k + 1
        ),
    };
    let text = crate::runner::schedule::text(config, point, shown.schedule(explored), &about);
    write_atomic(&dir.join(&file), text.as_bytes())?;
    writeln!(
        md,
        "{}\n",
        say.pick(
            "Its choices: [{file}]({file}); run it again, with every output a run has: `coordsim run {config} --schedule DIR/{file}` (DIR: this folder).",
            "Seçimleri: [{file}]({file}); bir koşunun her çıktısıyla yeniden koşturmak için: `coordsim run {config} --schedule DIR/{file}` (DIR: bu klasör)."
        )
        .replace("{file}", &file)
        .replace("{config}", &config.source.name)
    )?;
    Ok(())
}

/// The trace chart of claim `n` (from 1), named `claim`, deciding execution `steps`, as
/// `config` words it: `trace-N`, its headers and notes in the config's locale; a
/// scheduler's execution says which (`scheduler`: [`scheduler_line`]) as its first note.
pub(crate) fn trace_chart(
    config: &Config,
    n: usize,
    claim: &str,
    steps: &[TraceStep],
    scheduler: Option<String>,
) -> Prepared {
    let (name, title) = (format!("trace-{n}"), format!("{}: {claim}", config.title));
    let mut notes: Vec<String> = scheduler.into_iter().collect();
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

/// What a scheduler's execution deciding claim `n` (from 0) of `config` is, in the config's
/// locale: `the most likely execution under the scheduler of the greatest probability:
/// probability 0.3` (`mean`, `p99` for a claim on a statistic; `least` for `min`). `None`
/// for an outcome's shortest execution.
pub(crate) fn scheduler_line(
    config: &Config,
    n: usize,
    explored: &[Exploration],
    shown: crate::check::Shown,
) -> Option<String> {
    scheduler_said(config.locale, config, n, explored, shown)
}

/// [`scheduler_line`] in `locale`.
fn scheduler_said(
    locale: crate::locale::Locale,
    config: &Config,
    n: usize,
    explored: &[Exploration],
    shown: crate::check::Shown,
) -> Option<String> {
    let path = shown.extreme(explored)?;
    let claim = config.claims.get(n)?;
    let say = Say(locale);
    let least = claim.scheduler == Some(crate::config::Scheduler::Min);
    let what = match claim.stat.filter(|_| claim.probability.is_none()) {
        Some(crate::config::Stat::Quantile(p)) => say
            .pick("p{p}", "{p}. yüzdeliği")
            .replace("{p}", &locale.number(&p.written())),
        Some(_) => say.pick("mean", "ortalamayı").to_string(),
        None => say.pick("probability", "olasılığı").to_string(),
    };
    let line = match least {
        true => say.pick(
            "the most likely execution under the scheduler of the least {what}: probability {p}",
            "en düşük {what} veren zamanlayıcıda en olası yürütme: olasılık {p}",
        ),
        false => say.pick(
            "the most likely execution under the scheduler of the greatest {what}: probability {p}",
            "en yüksek {what} veren zamanlayıcıda en olası yürütme: olasılık {p}",
        ),
    };
    Some(
        line.replace("{what}", &what)
            .replace("{p}", &locale.number(&rounded(path.probability))),
    )
}

/// A trace as a Markdown table.
fn trace_table(trace: &[TraceStep], locale: crate::locale::Locale) -> String {
    let mut md = String::from(Say(locale).pick(
        "| step | time_ms | actor | action | choice |\n| --- | --- | --- | --- | --- |\n",
        "| adım | zaman (ms) | aktör | ne yaptı | seçim |\n| --- | --- | --- | --- | --- |\n",
    ));
    for (i, s) in trace.iter().enumerate() {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            i + 1,
            locale.number(&s.time_ms.to_string()),
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
pub(crate) fn rounded(p: f64) -> String {
    let s = format!("{p:.12}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// `explore.md`'s own sentences in the config's locale, as its steps' words are (the
/// trace's): English or Turkish. A bound's verdict is said as the exploration gives it.
#[derive(Clone, Copy)]
struct Say(crate::locale::Locale);

impl Say {
    fn pick<'a>(self, english: &'a str, turkish: &'a str) -> &'a str {
        match self.0 {
            crate::locale::Locale::En => english,
            crate::locale::Locale::Tr => turkish,
        }
    }

    /// The page's heading: the config's title, and that the page is about every execution
    /// unless the title says so already (`… her yürütmede` stays as it is written).
    fn heading(self, title: &str) -> String {
        let every = self.pick("every execution", "her yürütme");
        if title.to_lowercase().contains(every) {
            title.to_string()
        } else {
            format!("{title} — {every}")
        }
    }

    /// Why the exploration is not exhaustive: English as the exploration says it, Turkish
    /// with its numbers as Turkish writes them.
    fn bound(self, bound: &Bound) -> String {
        if self.0 == crate::locale::Locale::En {
            return bound.to_string();
        }
        let number = |n: u64| self.0.number(&n.to_string());
        let shard = bound
            .shard
            .map_or(String::new(), |(k, n)| format!("parça {k}/{n}: "));
        let reached = match bound.reached {
            Reached::Time { states } => format!(
                "sınırlı: {} durum, eksiksiz değil (süre sınırında durdu, `--max-seconds`)",
                number(states)
            ),
            Reached::States { states } => {
                format!(
                    "sınırlı: {} durum, eksiksiz değil (`max_states`)",
                    number(states)
                )
            }
            Reached::Memory { states } => format!(
                "sınırlı: {} durum, eksiksiz değil (bellek, `--max-memory`)",
                number(states)
            ),
            Reached::Counts { states } => format!(
                "sınırlı: sayılarıyla {} durum, eksiksiz değil (`max_states`)",
                number(states)
            ),
            Reached::Spill { states } => format!(
                "sınırlı: sayılarıyla {} durum, eksiksiz değil (bellek: diske taşan kısım daha fazlasını alamadı, `--max-spill`)",
                number(states)
            ),
            Reached::Outcomes { max } => format!(
                "sınırlı: {} ayrı sonuçtan fazlası, eksiksiz değil (`max_outcomes`)",
                number(max)
            ),
            Reached::Cycle => "sınırlı: bir yürütme bulunduğu bir duruma dönebiliyor (bir döngü), \
                 bu yüzden yürütmelerin hepsi sayılamaz"
                .to_string(),
        };
        shard + &reached
    }

    /// Which groups the exploration took as interchangeable, and why any other group of
    /// two or more was not, in a line (none when the point has no such group).
    fn symmetry(self, notes: &[SymmetryNote]) -> Option<String> {
        let number = |n: u32| self.0.number(&n.to_string());
        let said: Vec<String> = notes
            .iter()
            .map(|note| {
                let (group, members) = (escape(&note.group), number(note.members));
                let why = match note.kept {
                    Kept::Reduced => {
                        return self
                            .pick(
                                "the {n} members of {g} taken as interchangeable",
                                "{g} grubunun {n} üyesi birbirinin yerine geçebilir sayıldı",
                            )
                            .replace("{n}", &members)
                            .replace("{g}", &group);
                    }
                    Kept::UsesIndex => self.pick(
                        "its steps or its start use `i` or a list of one number per member",
                        "adımları ya da başlangıcı `i`'yi ya da üye başına bir sayı listesini kullanıyor",
                    ),
                    Kept::StartsApart => self.pick(
                        "its members start at different times",
                        "üyeleri farklı zamanlarda başlıyor",
                    ),
                    Kept::OpenLoop => self.pick(
                        "a group runs in an open loop",
                        "bir grup açık döngüde çalışıyor",
                    ),
                    Kept::Forks => self.pick(
                        "a group forks with `parallel`",
                        "bir grup `parallel` ile dallara ayrılıyor",
                    ),
                    Kept::Crashes => self.pick("a group may crash", "bir grup çökebiliyor"),
                    Kept::Sharded => self.pick(
                        "a shard keeps every state apart",
                        "bir parça her durumu ayrı tutar",
                    ),
                    Kept::TurnedOff => self.pick(
                        "turned off by `--no-symmetry` or `--no-merge`",
                        "`--no-symmetry` ya da `--no-merge` ile kapatıldı",
                    ),
                };
                self.pick(
                    "not used for {g} ({why})",
                    "{g} grubuna uygulanmadı ({why})",
                )
                .replace("{g}", &group)
                .replace("{why}", why)
            })
            .collect();
        (!said.is_empty())
            .then(|| format!("{}: {}.", self.pick("Symmetry", "Simetri"), said.join("; ")))
    }

    /// The chance that two of the states seen shared a fingerprint, in a line (as TLC
    /// prints it), its number to one digit: `3 × 10⁻¹⁷`.
    fn collision(self, e: &Exploration) -> String {
        let states = self.0.number(&e.states.to_string());
        self.pick(
            "Fingerprints of 64 bits: the chance that two of the {n} states shared one (and were taken for one) is about {p}.",
            "64 bitlik parmak izleri: {n} durumdan ikisinin aynı parmak izini paylaşma (tek durum sayılma) olasılığı yaklaşık {p}.",
        )
        .replace("{n}", &states)
        .replace("{p}", &power_of_ten(e.collision_chance()))
    }

    /// What a search without counts leaves out, in a line.
    fn uncounted(self) -> &'static str {
        self.pick(
            "Executions and probabilities are not counted (`--no-counts`): each outcome is one the point reaches, shown by one of its shortest executions; a register's counts (writes, lost updates, refused writes) are counted only where a claim reads one, else their cells are empty.",
            "Yürütmeler ve olasılıklar sayılmadı (`--no-counts`): her sonuç noktanın ulaştığı bir sonuçtur ve en kısa yürütmelerinden biriyle gösterilir; bir kaydın sayıları (yazmalar, kaybolan güncellemeler, reddedilen yazmalar) yalnızca bir iddia onlardan birini okuduğunda sayılır, yoksa hücreleri boştur.",
        )
    }

    /// What one point's exploration visited and found, in a line.
    fn summary(self, e: &Exploration) -> String {
        let verdict = e.bounded.as_ref().map_or_else(
            || self.pick("exhaustive", "eksiksiz").to_string(),
            |bound| self.bound(bound),
        );
        let reduced = if e.reduced > 0 {
            self.pick(
                " (one order of the events that commute)",
                " (yer değiştirebilen olayların tek bir sırası)",
            )
        } else {
            ""
        };
        let outcomes = e.outcomes.len();
        let plural = |one: bool| if one { "" } else { "s" };
        let number = |n: String| self.0.number(&n);
        let (states, transitions) = (
            number(e.states.to_string()),
            number(e.transitions.to_string()),
        );
        let (executions, longest) = (
            number(e.executions.to_string()),
            number(e.longest.to_string()),
        );
        // A search without counts: which outcomes are reachable, not by how many.
        if !e.counted {
            return match self.0 {
                crate::locale::Locale::En => format!(
                    "{states} state{}, {transitions} transition{}, executions not counted (`--no-counts`){reduced}, {outcomes} distinct outcome{}: {verdict}.",
                    plural(e.states == 1),
                    plural(e.transitions == 1),
                    plural(outcomes == 1),
                ),
                crate::locale::Locale::Tr => format!(
                    "{states} durum, {transitions} geçiş, yürütmeler sayılmadı (`--no-counts`){reduced}, {outcomes} ayrı sonuç: {verdict}."
                ),
            };
        }
        // A loop without end: executions without end, infinitely many, not counted.
        if e.cycles {
            return match self.0 {
                crate::locale::Locale::En => format!(
                    "{states} state{}, {transitions} transition{}, executions not counted (a loop without end){reduced}, {outcomes} distinct outcome{}: {verdict}.",
                    plural(e.states == 1),
                    plural(e.transitions == 1),
                    plural(outcomes == 1),
                ),
                crate::locale::Locale::Tr => format!(
                    "{states} durum, {transitions} geçiş, yürütmeler sayılmadı (sonu olmayan bir döngü){reduced}, {outcomes} ayrı sonuç: {verdict}."
                ),
            };
        }
        // The longest execution's events, when some execution ended, or when a cycle
        // left them uncounted (its longest is then the deepest state's).
        let ended = e.executions > 0
            || e.bounded
                .is_some_and(|bound| matches!(bound.reached, Reached::Cycle));
        match self.0 {
            crate::locale::Locale::En => format!(
                "{states} state{}, {transitions} transition{}, {executions} execution{}{reduced}, {outcomes} distinct outcome{}{}: {verdict}.",
                plural(e.states == 1),
                plural(e.transitions == 1),
                plural(e.executions == 1),
                plural(outcomes == 1),
                if ended {
                    format!(", the longest {longest} event{}", plural(e.longest == 1))
                } else {
                    String::new()
                },
            ),
            crate::locale::Locale::Tr => format!(
                "{states} durum, {transitions} geçiş, {executions} yürütme{reduced}, {outcomes} ayrı sonuç{}: {verdict}.",
                if ended {
                    format!(", en uzunu {longest} olay")
                } else {
                    String::new()
                },
            ),
        }
    }
}

/// A chance to one digit as a power of ten, `3 × 10⁻¹⁷` (`0` and `1` as they are): the
/// same in every language, no decimal separator in it.
fn power_of_ten(p: f64) -> String {
    if p <= 0.0 {
        return "0".to_string();
    }
    if p >= 1.0 {
        return "1".to_string();
    }
    // `{:.0e}` rounds to one digit: `3e-17`, `1e-3`.
    let text = format!("{p:.0e}");
    let (digit, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let power: String = exponent
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => SUPERSCRIPT[d.to_digit(10).unwrap_or(0) as usize],
        })
        .collect();
    format!("{digit} × 10{power}")
}

#[cfg(test)]
mod tests {
    use super::Say;
    use crate::locale::Locale;
    use coordsim_model::{Bound, Exploration, Reached};

    /// A title that says it covers every execution is the heading as written; any other
    /// gets the words appended, in the config's language.
    #[test]
    fn a_heading_says_every_execution_once() {
        let (en, tr) = (Say(Locale::En), Say(Locale::Tr));
        assert_eq!(en.heading("Lost update"), "Lost update — every execution");
        assert_eq!(
            en.heading("Every execution of the lost update"),
            "Every execution of the lost update"
        );
        assert_eq!(
            tr.heading("Kaybolan güncelleme"),
            "Kaybolan güncelleme — her yürütme"
        );
        assert_eq!(
            tr.heading("Kaybolan güncelleme, her yürütmede"),
            "Kaybolan güncelleme, her yürütmede"
        );
    }

    /// A bound is said in English as the exploration words it, and in Turkish with the
    /// numbers as Turkish writes them and the shard that reached it.
    #[test]
    fn a_bound_is_said_in_the_configs_language() {
        let (en, tr) = (Say(Locale::En), Say(Locale::Tr));
        let states = Bound::new(Reached::States { states: 2_000_000 });
        assert_eq!(
            en.bound(&states),
            "bounded: 2,000,000 states, not exhaustive (`max_states`)"
        );
        assert_eq!(
            tr.bound(&states),
            "sınırlı: 2.000.000 durum, eksiksiz değil (`max_states`)"
        );
        let outcomes = Bound {
            reached: Reached::Outcomes { max: 1000 },
            shard: Some((1, 4)),
        };
        assert_eq!(
            en.bound(&outcomes),
            "shard 1/4: bounded: more than 1,000 distinct outcomes, not exhaustive (`max_outcomes`)"
        );
        assert_eq!(
            tr.bound(&outcomes),
            "parça 1/4: sınırlı: 1.000 ayrı sonuçtan fazlası, eksiksiz değil (`max_outcomes`)"
        );
        for reached in [
            Reached::Time { states: 5 },
            Reached::Memory { states: 5 },
            Reached::Counts { states: 5 },
            Reached::Cycle,
        ] {
            let said = tr.bound(&Bound::new(reached));
            assert!(
                said.starts_with("sınırlı: ") && !said.contains("bounded"),
                "{said}"
            );
        }
    }

    /// A summary's counts agree with their nouns, and one that no execution ended has no
    /// longest execution to name.
    #[test]
    fn a_summary_says_one_and_many() {
        let exploration = |states, transitions, executions: u128, longest| Exploration {
            cycles: false,
            counted: true,
            states,
            transitions,
            executions,
            bounded: None,
            ordered: false,
            longest,
            reduced: 0,
            keyed: true,
            symmetry: Vec::new(),
            outcomes: Vec::new(),
            part: None,
            schedulers: None,
            paths: Vec::new(),
            engine: coordsim_model::Engine::Interpret,
        };
        let en = Say(Locale::En);
        assert_eq!(
            en.summary(&exploration(1, 1, 1, 1)),
            "1 state, 1 transition, 1 execution, 0 distinct outcomes, the longest 1 event: exhaustive."
        );
        assert_eq!(
            en.summary(&exploration(2_000, 3, 0, 5)),
            "2,000 states, 3 transitions, 0 executions, 0 distinct outcomes: exhaustive."
        );
        assert_eq!(
            Say(Locale::Tr).summary(&exploration(2_000, 3, 0, 5)),
            "2.000 durum, 3 geçiş, 0 yürütme, 0 ayrı sonuç: eksiksiz."
        );
    }

    /// The collision chance, n² / 2^65 to one digit: 33 states, 1,089 / 2^65 =
    /// 2.95 × 10⁻¹⁷ → `3 × 10⁻¹⁷`; 2,000,000 states, 4 × 10^12 / 3.69 × 10^19 =
    /// 1.08 × 10⁻⁷ → `1 × 10⁻⁷` (docs/explore.md's "about 10^-7"); none keyed: 0.
    #[test]
    fn the_collision_chance_is_n_squared_over_two_to_the_65() {
        let exploration = |states, keyed| Exploration {
            cycles: false,
            counted: true,
            states,
            transitions: 0,
            executions: 0,
            bounded: None,
            ordered: false,
            longest: 0,
            reduced: 0,
            keyed,
            symmetry: Vec::new(),
            outcomes: Vec::new(),
            part: None,
            schedulers: None,
            paths: Vec::new(),
            engine: coordsim_model::Engine::Interpret,
        };
        assert_eq!(
            Say(Locale::En).collision(&exploration(33, true)),
            "Fingerprints of 64 bits: the chance that two of the 33 states shared one (and were taken for one) is about 3 × 10⁻¹⁷."
        );
        assert_eq!(
            Say(Locale::Tr).collision(&exploration(2_000_000, true)),
            "64 bitlik parmak izleri: 2.000.000 durumdan ikisinin aynı parmak izini paylaşma (tek durum sayılma) olasılığı yaklaşık 1 × 10⁻⁷."
        );
        assert_eq!(exploration(2_000_000, false).collision_chance(), 0.0);
        assert_eq!(
            super::power_of_ten(exploration(1 << 40, true).collision_chance()),
            "1"
        );
    }

    /// The symmetry line names each group of two or more: reduced, or why not; a point
    /// with no such group has no line.
    #[test]
    fn the_symmetry_line_says_each_group() {
        use coordsim_model::{Kept, SymmetryNote};
        let note = |group: &str, members, kept| SymmetryNote {
            group: group.into(),
            members,
            kept,
        };
        let notes = [
            note("client", 3, Kept::Reduced),
            note("worker", 2, Kept::UsesIndex),
        ];
        assert_eq!(
            Say(Locale::En).symmetry(&notes).unwrap(),
            "Symmetry: the 3 members of client taken as interchangeable; not used for worker \
             (its steps or its start use `i` or a list of one number per member)."
        );
        assert_eq!(
            Say(Locale::Tr).symmetry(&notes[..1]).unwrap(),
            "Simetri: client grubunun 3 üyesi birbirinin yerine geçebilir sayıldı."
        );
        assert_eq!(Say(Locale::En).symmetry(&[]), None);
    }
}
